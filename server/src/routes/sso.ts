import { routes, SsoBrowserQuery } from '@bridgekit/contract';
import type { Request, RequestHandler, Response, Router } from 'express';
import { ApiError, forbidden } from '../api-error';
import type { Deps } from '../deps';
import { toMember, toOrganization } from '../domain/serialize';
import { rowAllowsOrigin } from '../embed-origins';
import { unavailableError } from '../faults';
import { sessionCookie } from '../http/cookies';
import { setCorsHeaders } from '../http/cors';
import { mountJson } from '../http/route';
import { parseInput } from '../http/validate';
import { issueSession, provisionMember, verifyHostToken } from '../sso/exchange';
import { unverifiedOrgId } from '../sso/token';
import { findOrganizationById, type OrganizationRow } from '../store/organizations';
import { sendErrorPage } from './embed-page';

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

export function ssoRoutes(router: Router, deps: Deps, mw: { body: RequestHandler }) {
  mountJson(router, routes.ssoExchange, { body: mw.body }, async ({ req, res, body }) => {
    const origin = req.get('origin');
    // A page of an allowed origin must be able to read a refusal too (401 for an expired
    // token, 429 with Retry-After): CORS follows the organization the token names, before it
    // is verified. That says nothing a preflight would not; the answer itself stays generic.
    const namedOrgId = origin ? unverifiedOrgId(body.jwt) : undefined;
    let named: OrganizationRow | undefined;
    if (origin && namedOrgId && !namedOrgId.includes('\u0000')) {
      named = await findOrganizationById(deps.store.db, namedOrgId);
      if (named && rowAllowsOrigin(named, origin)) setCorsHeaders(res, origin);
    }
    const { org, claims } = await verifyHostToken(deps, body.jwt, {
      known: named,
      admit: async (org) => {
        await deps.limits.sso.hit(`sso:${org.id}`, res);
        if (origin && !rowAllowsOrigin(org, origin)) {
          throw forbidden('Origin not allowed for this organization', 'origin_not_allowed');
        }
      },
    });
    const member = await provisionMember(deps, org, claims);
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
  });

  router.get(routes.ssoBrowser.path, async (req: Request, res: Response) => {
    const wantsHtml = req.accepts(['json', 'html']) === 'html';
    try {
      const query = parseInput(SsoBrowserQuery, req.query, 'query');
      const origin = framingOrigin(req);
      const { org, claims } = await verifyHostToken(deps, query.jwt, {
        admit: async (org) => {
          await deps.limits.sso.hit(`sso:${org.id}`, res);
          if (!org.fullEmbedEnabled)
            throw forbidden(
              'Full embed is not enabled for this organization',
              'full_embed_disabled',
            );
          if (!origin || !rowAllowsOrigin(org, origin)) {
            throw forbidden('This page may not be embedded here', 'framing_not_allowed');
          }
        },
      });
      const member = await provisionMember(deps, org, claims);
      const session = await issueSession(deps, member, { kind: 'embed', framingOrigin: origin });
      const maxAge = Math.max(
        0,
        Math.floor((session.expiresAt.getTime() - deps.now().getTime()) / 1000),
      );
      res.setHeader('Set-Cookie', sessionCookie(session.sessionToken, maxAge));
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(302, `/embed/orgs/${encodeURIComponent(org.slug)}`);
    } catch (caught) {
      // A dependency at fault is a 503 page in the iframe too, not a 500.
      const err = unavailableError(caught) ?? caught;
      if (!(err instanceof ApiError) || !wantsHtml) throw err;
      if (err.cause)
        req.log.info({ reason: String((err.cause as Error).message ?? err.cause) }, err.message);
      sendErrorPage(res, err);
    }
  });
}
