import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../api-error';
import type { Deps } from '../deps';
import { looksLikeApiKey } from '../domain/api-keys';
import { originAllowed } from '../sso/origins';
import { findOrganizationById } from '../store/organizations';
import { bearerToken, requestSession } from './auth';

const ORG_PATH = /^\/api\/public\/organizations\/([^/]+)/;
const EXPOSED =
  'X-Request-Id, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, WWW-Authenticate';
const PATTERNS_TTL_MS = 5000;

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

export function setCorsHeaders(res: Response, origin: string) {
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Access-Control-Expose-Headers', EXPOSED);
}

/**
 * CORS by organization: a request with an `Origin` gets CORS headers only when the addressed
 * organization (from the path, else from the embed session) allows that origin. Credentials
 * are never allowed: the API authenticates with bearer tokens, not cookies.
 */
export function cors(deps: Deps) {
  let everyPattern: { at: number; patterns: string[] } | undefined;

  // A preflight carries no token, so without an org in the path the best answer is whether any
  // organization allows the origin; the real request is then checked against its own org.
  async function anyOrgAllows(origin: string): Promise<boolean> {
    const now = Date.now();
    if (!everyPattern || now - everyPattern.at > PATTERNS_TTL_MS) {
      const rows = await deps.store.db
        .selectFrom('organizations')
        .select('embedAllowedOrigins')
        .execute();
      everyPattern = {
        at: now,
        patterns: [...new Set(rows.flatMap((r) => JSON.parse(r.embedAllowedOrigins) as string[]))],
      };
    }
    return originAllowed(everyPattern.patterns, origin);
  }

  async function orgAllows(orgId: string, origin: string): Promise<boolean> {
    const org = await findOrganizationById(deps.store.db, orgId);
    return org ? originAllowed(JSON.parse(org.embedAllowedOrigins) as string[], origin) : false;
  }

  return async (req: Request, res: Response, next: NextFunction) => {
    res.append('Vary', 'Origin');
    const origin = req.get('origin');
    if (!origin || !req.path.startsWith('/api/')) return next();
    // The bridge's own pages (full embed) are not cross-origin: browsers send Origin on
    // same-origin POSTs too, and Sec-Fetch-Site is set by the browser, never by the page.
    if (req.get('sec-fetch-site') === 'same-origin') return next();
    const preflight = req.method === 'OPTIONS';
    const pathOrg = ORG_PATH.exec(req.path)?.[1];
    const bearer = bearerToken(req.get('authorization'));
    const session =
      bearer && !looksLikeApiKey(bearer) ? await requestSession(deps, req, bearer) : null;

    let allowed: boolean;
    if (pathOrg) {
      const orgId = decodePathSegment(pathOrg);
      allowed = orgId !== undefined && (await orgAllows(orgId, origin));
    } else if (session) allowed = await orgAllows(session.orgId, origin);
    else if (preflight) allowed = await anyOrgAllows(origin);
    // The SSO exchange decides after it knows the token's organization.
    else if (req.path === '/api/sso/jwt') return next();
    else allowed = false;

    if (preflight) {
      if (!allowed) return next(new ApiError('Forbidden', 'Origin not allowed'));
      setCorsHeaders(res, origin);
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PATCH, DELETE');
      res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, X-Request-Id');
      res.setHeader('Access-Control-Max-Age', '600');
      res.status(204).end();
      return;
    }
    if (allowed) setCorsHeaders(res, origin);
    // An embed session only works from the origins its organization allows.
    else if (session)
      return next(new ApiError('Forbidden', 'Origin not allowed for this organization'));
    next();
  };
}
