import { routes } from '@bridgekit/contract';
import type { Request, Response, Router } from 'express';
import { decodeJwt } from 'jose';
import type { Deps } from '../deps';
import { ApiError } from '../http/api-error';
import { readCookie, SESSION_COOKIE } from '../http/cookies';
import { mountJson } from '../http/route';
import { frameAncestors } from '../sso/origins';
import { findOrganizationById, findOrganizationBySlug } from '../store/organizations';
import { renderEmbedPage, renderMessagePage } from './embed-page';

const csp = (ancestors: string) =>
  `default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: https:; frame-ancestors ${ancestors}`;

export function embedRoutes(router: Router, deps: Deps, options: { script?: string } = {}) {
  router.get(
    routes.embedPage.path.replace('{slug}', ':slug'),
    async (req: Request, res: Response) => {
      const org = await findOrganizationBySlug(deps.store.db, String(req.params.slug));
      const ancestors = org
        ? frameAncestors(JSON.parse(org.embedAllowedOrigins) as string[])
        : "'none'";
      res.setHeader('Content-Security-Policy', csp(ancestors));
      res.setHeader('Cache-Control', 'no-store');
      if (!org?.fullEmbedEnabled) {
        res.status(404).type('html').send(renderMessagePage('NotFound', 'No such embed page'));
        return;
      }
      const token = readCookie(req.get('cookie'), SESSION_COOKIE);
      const session = token ? await deps.sessions.verify(token) : null;
      if (!session || session.orgId !== org.id) {
        res
          .status(401)
          .setHeader('WWW-Authenticate', 'Bearer')
          .type('html')
          .send(
            renderMessagePage(
              'Unauthorized',
              'Your session has ended. Reload the page to sign in again.',
            ),
          );
        return;
      }
      res.type('html').send(
        renderEmbedPage({
          orgName: org.name,
          orgId: org.id,
          memberId: session.memberId,
          script: options.script,
        }),
      );
    },
  );

  mountJson(router, routes.embedSession, {}, async ({ req }) => {
    // A custom header forces a CORS preflight, which other sites fail: same-origin use only.
    if (req.get('x-bridgekit-embed') !== '1')
      throw new ApiError('Forbidden', 'Send X-Bridgekit-Embed: 1');
    const token = readCookie(req.get('cookie'), SESSION_COOKIE);
    const session = token ? await deps.sessions.verify(token) : null;
    if (!token || !session || !(await findOrganizationById(deps.store.db, session.orgId))) {
      throw new ApiError('Unauthorized', 'No valid embed session');
    }
    const exp = decodeJwt(token).exp ?? 0;
    return {
      data: {
        sessionToken: token,
        expiresAt: new Date(exp * 1000).toISOString(),
        organizationId: session.orgId,
        memberId: session.memberId,
      },
    };
  });
}
