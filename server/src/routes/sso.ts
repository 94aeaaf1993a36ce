import { routes, SsoBrowserQuery } from '@bridgekit/contract';
import type { Request, RequestHandler, Response, Router } from 'express';
import { ApiError, forbidden } from '../api-error';
import type { Deps } from '../deps';
import { toMember, toOrganization } from '../domain/serialize';
import { rowAllowsOrigin } from '../embed-origins';
import { unavailableError } from '../faults';
import { clearCorsHeaders, setCorsHeaders } from '../http/cors';
import { rateLimitOn } from '../http/rate-limit';
import { mountJson, type RouteContext } from '../http/route';
import { parseInput } from '../http/validate';
import { issueHandoff } from '../sso/embed-handoff';
import { embedOptionsQuery, readEmbedOptions } from '../sso/embed-options';
import {
  issueSession,
  provisionMember,
  readTokenOrganization,
  verifyHostToken,
} from '../sso/exchange';
import { unverifiedClaims } from '../sso/token';
import type { OrganizationRow } from '../store/organizations';
import { type SignInFailureNotice, sendSignInFailurePage } from './embed-page';

/** The origin of the page framing a full-embed sign-in: `Origin`, else the origin of `Referer`. */
function framingOrigin(req: Request): string | undefined {
  const origin = req.get('origin');
  if (origin && origin !== 'null') return origin;
  const referer = req.get('referer');
  if (!referer) return undefined;
  try {
    return new URL(referer).origin;
  } catch {
    return undefined;
  }
}

// Only `jwt` is checked strictly on the browser flow; see SsoBrowserQuery.
const BrowserToken = SsoBrowserQuery.pick({ jwt: true });

export function ssoRoutes(router: Router, deps: Deps, mw: { body: RequestHandler }) {
  mountJson(router, routes.ssoExchange, { body: mw.body }, exchangeHandler(deps));
  router.get(routes.ssoBrowser.path, browserSignInHandler(deps));
}

/** The kit's exchange: a host-signed token for a session token. */
function exchangeHandler(deps: Deps) {
  return async ({ req, res, body }: RouteContext<typeof routes.ssoExchange>) => {
    const origin = req.get('origin');
    // A page of an allowed origin must be able to read a refusal too (401 for an expired
    // token, 429 with Retry-After): CORS follows the organization the token names, before it
    // is verified. That says nothing a preflight would not; the answer itself stays generic.
    // The row is the one the exchange relies on (read, or kept and checked: see exchange.ts).
    let named = false;
    const corsFor = (org: OrganizationRow | undefined) => {
      named = true;
      if (org && origin && rowAllowsOrigin(org, origin)) setCorsHeaders(res, origin);
      else clearCorsHeaders(res);
    };
    let verified: Awaited<ReturnType<typeof verifyHostToken>>;
    try {
      verified = await verifyHostToken(deps, body.jwt, {
        rateLimit: rateLimitOn(res),
        onOrganization: origin ? corsFor : undefined,
        admit: (org) => {
          if (origin && !rowAllowsOrigin(org, origin)) {
            throw forbidden('Origin not allowed for this organization', 'origin_not_allowed');
          }
        },
      });
    } catch (refusal) {
      // A token refused before any organization was looked up (malformed, alg none) may still
      // name one, whose allowed pages may read the refusal.
      const claims = origin && !named ? unverifiedClaims(body.jwt) : undefined;
      if (claims) {
        const read = await readTokenOrganization(deps, claims.orgId, claims.email).catch(
          () => undefined,
        );
        corsFor(read?.org);
      }
      throw refusal;
    }
    const { org } = verified;
    const member = await provisionMember(deps, verified);
    const session = await issueSession(deps, member, { kind: 'kit' });
    return {
      data: {
        sessionToken: session.sessionToken,
        expiresAt: session.expiresAt.toISOString(),
        absoluteExpiresAt: session.claims.absoluteExpiresAt.toISOString(),
        organization: toOrganization(org, deps.now()),
        member: toMember(member),
      },
    };
  };
}

/**
 * The full embed's sign-in, loaded in the host's iframe: verifies the token and redirects to
 * the embed page with a handoff code; a refusal is an error page when HTML is wanted.
 */
function browserSignInHandler(deps: Deps) {
  return async (req: Request, res: Response) => {
    const wantsHtml = req.accepts(['json', 'html']) === 'html';
    // Neither the redirect (its fragment holds the handoff code) nor an error page may leak
    // the URL that loaded them.
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cache-Control', 'no-store');
    try {
      const query = req.query as Record<string, unknown>;
      const { jwt } = parseInput(BrowserToken, { jwt: query.jwt }, 'query');
      const { options, ignored } = readEmbedOptions(query);
      if (ignored.length > 0) req.log.debug({ ignored }, 'sso: unknown query parameters ignored');
      const origin = framingOrigin(req);
      let allowedOrigin = '';
      const verified = await verifyHostToken(deps, jwt, {
        rateLimit: rateLimitOn(res),
        admit: (org) => {
          if (!org.fullEmbedEnabled)
            throw forbidden(
              'Full embed is not enabled for this organization',
              'full_embed_disabled',
            );
          if (!origin || !rowAllowsOrigin(org, origin)) {
            throw forbidden('This page may not be embedded here', 'framing_not_allowed');
          }
          allowedOrigin = origin;
        },
      });
      const { org } = verified;
      const member = await provisionMember(deps, verified);
      // No cookie: a frame on another site may not get one (Safari, third-party cookies
      // blocked). The page trades this code for its session at POST /embed/session.
      const code = await issueHandoff(deps, member, allowedOrigin);
      const page = `/embed/orgs/${encodeURIComponent(org.slug)}${embedOptionsQuery(options)}`;
      // The origin rides along for a browser that can't tell the page its parent (Firefox):
      // where to say a refused code ended the session. The page uses it for messages only.
      res.redirect(302, `${page}#code=${code}&origin=${encodeURIComponent(allowedOrigin)}`);
    } catch (caught) {
      // A dependency at fault is a 503 page in the iframe too, not a 500.
      const err = unavailableError(caught) ?? caught;
      if (!(err instanceof ApiError) || !wantsHtml) throw err;
      if (err.cause)
        req.log.info({ reason: String((err.cause as Error).message ?? err.cause) }, err.message);
      const query = req.query as Record<string, unknown>;
      const { options } = readEmbedOptions(query);
      sendSignInFailurePage(
        res,
        err,
        options.theme,
        await failureNotice(deps, req, err, query.jwt),
      );
    }
  };
}

/**
 * Where a failed sign-in may say so: the framing origin, when the organization the token names
 * allows it (whatever the failure, full embed off included), else nowhere. The organization is
 * read by the token's unverified `orgId`: a message goes only to a page the organization
 * itself lists, and says no more than the page shows.
 */
async function failureNotice(
  deps: Deps,
  req: Request,
  err: ApiError,
  jwt: unknown,
): Promise<SignInFailureNotice | undefined> {
  const origin = framingOrigin(req);
  const claims = origin ? unverifiedClaims(jwt) : undefined;
  if (!origin || !claims) return undefined;
  const read = await readTokenOrganization(deps, claims.orgId, undefined).catch(() => undefined);
  if (!read || !rowAllowsOrigin(read.org, origin)) return undefined;
  const limit = err.params?.limit;
  return {
    origin,
    message: {
      type: 'bridgekit:session-ended',
      reason: err.code,
      ...(typeof limit === 'number' ? { limit } : {}),
    },
  };
}
