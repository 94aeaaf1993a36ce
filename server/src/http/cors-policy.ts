import type { Request } from 'express';
import type { Deps } from '../deps';
import { looksLikeApiKey } from '../domain/api-keys';
import type { OriginPolicy } from '../embed-origins';
import { bearerToken, requestSession } from './auth';
import type { CorsOptions } from './cors';

const ORG_PATH = /^\/api\/public\/organizations\/([^/]+)/;

// Bad %-encoding is the client's error (the router answers 400), never a 500 from here; nor is
// a U+0000 that PostgreSQL can't compare (no id holds one: the route answers 404).
function decodePathSegment(segment: string): string | undefined {
  try {
    const decoded = decodeURIComponent(segment);
    return decoded.includes('\u0000') ? undefined : decoded;
  } catch {
    return undefined;
  }
}

/**
 * The bridge's CORS rule: the organization a request addresses (from the path, else from its
 * embed session) decides whether its origin is allowed. A preflight carries no token, so
 * without an organization in the path it asks whether any organization allows the origin; the
 * real request is then checked against its own. The SSO exchange decides in its route, once
 * it knows the token's organization. Authentication then refuses (403) any credential, key or
 * session, used from an origin this does not allow.
 */
export function embedCorsPolicy(deps: Deps, origins: OriginPolicy): CorsOptions['allowOrigin'] {
  return async (origin: string, req: Request) => {
    const preflight = req.method === 'OPTIONS';
    const pathOrg = ORG_PATH.exec(req.path)?.[1];
    const bearer = bearerToken(req.get('authorization'));
    const session =
      bearer && !looksLikeApiKey(bearer) ? await requestSession(deps, req, bearer) : null;

    let allowed = false;
    if (pathOrg) {
      const orgId = decodePathSegment(pathOrg);
      allowed = orgId !== undefined && (await origins.orgAllows(orgId, origin));
    } else if (session) allowed = await origins.orgAllows(session.orgId, origin);
    else if (preflight) allowed = await origins.anyOrgAllows(origin);

    return allowed;
  };
}
