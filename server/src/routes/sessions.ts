import { routes } from '@bridgekit/contract';
import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import { ApiError, forbidden } from '../api-error';
import type { Deps } from '../deps';
import { toMember, toOrganization } from '../domain/serialize';
import { bearerToken } from '../http/auth';
import { sendRateLimit } from '../http/rate-limit';
import { mountJson } from '../http/route';
import type { SessionClaims } from '../sso/session-token';
import { findMember } from '../store/members';
import { revokeSession } from '../store/sessions';

const ended = () =>
  new ApiError('Unauthorized', 'Missing, invalid, revoked or expired credentials', {
    code: 'invalid_credentials',
  });

/**
 * Logout takes any token the bridge signed that has not expired, even for a member since
 * removed: ending a session must always work. Bearer only: the full-embed page has no cookie.
 */
function signedSession(deps: Deps): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const token = bearerToken(req.get('authorization'));
    const claims = token ? await deps.sessions.verify(token) : null;
    if (!claims) return next(ended());
    if (req.originRefused)
      return next(forbidden('Origin not allowed for this organization', 'origin_not_allowed'));
    sendRateLimit(await deps.limits.api.hit(`session:${claims.memberId}`), res);
    res.locals.session = claims;
    next();
  };
}

/** The calling session: who it is now, renewal, and logout. */
export function sessionRoutes(router: Router, deps: Deps, mw: { auth: RequestHandler }) {
  mountJson(router, routes.ssoSession, mw, async ({ principal }) => {
    const { session, org } = principal;
    const member = await findMember(deps.store.db, org.id, session.memberId);
    // Removed since authentication read it: the session has ended.
    if (!member) throw ended();
    return {
      data: {
        kind: session.kind,
        signedInAt: session.signedInAt.toISOString(),
        expiresAt: session.expiresAt.toISOString(),
        absoluteExpiresAt: session.absoluteExpiresAt.toISOString(),
        organization: toOrganization(org, deps.now()),
        member: toMember(member),
      },
    };
  });

  mountJson(router, routes.ssoRefresh, mw, async ({ principal }) => {
    const { session, role } = principal;
    // The renewed token carries the role as it is now.
    const renewed = await deps.sessions.renew({ ...session, role });
    if (!renewed) throw ended();
    return {
      data: {
        sessionToken: renewed.token,
        expiresAt: renewed.expiresAt.toISOString(),
        absoluteExpiresAt: renewed.claims.absoluteExpiresAt.toISOString(),
      },
    };
  });

  mountJson(
    router,
    routes.ssoLogout,
    { auth: signedSession(deps), authTakesOnly: 'session' },
    async ({ res }) => {
      const session = res.locals.session as SessionClaims;
      await revokeSession(
        deps.store.db,
        {
          sessionId: session.sessionId,
          orgId: session.orgId,
          expiresAt: session.absoluteExpiresAt.toISOString(),
        },
        deps.now().toISOString(),
      );
      res.setHeader('Cache-Control', 'no-store');
      return undefined;
    },
  );
}
