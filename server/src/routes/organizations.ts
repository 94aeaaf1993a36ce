import { routes } from '@bridgekit/contract';
import type { RequestHandler, Router } from 'express';
import type { Deps } from '../deps';
import { orgAccess } from '../domain/access';
import { createOrganization } from '../domain/organizations';
import { DEFAULT_LIMIT, toPage } from '../domain/pagination';
import { toOrganization } from '../domain/serialize';
import { forbidden } from '../http/api-error';
import { mountJson } from '../http/route';
import { listOrganizationsForUser } from '../store/organizations';

export function organizationRoutes(
  router: Router,
  deps: Deps,
  mw: { auth: RequestHandler; body: RequestHandler },
) {
  mountJson(router, routes.listOrganizations, mw, async ({ principal, query }) => {
    const limit = query.limit ?? DEFAULT_LIMIT;
    const rows = await listOrganizationsForUser(deps.store.db, principal.userId, {
      cursor: query.cursor,
      limit,
      onlyOrgId: principal.kind === 'session' ? principal.orgId : undefined,
    });
    const withSecret = query.include === 'jwtSecret';
    return toPage(rows, limit, (row) =>
      toOrganization(
        row,
        withSecret && row.role === 'ADMIN' ? { jwtSecretFrom: deps.secretBox } : {},
      ),
    );
  });

  mountJson(router, routes.createOrganization, mw, async ({ principal, query, body }) => {
    if (principal.kind === 'session')
      throw forbidden('An embed session cannot create organizations');
    const row = await createOrganization(deps, principal.userId, body);
    return {
      data: toOrganization(
        row,
        query.include === 'jwtSecret' ? { jwtSecretFrom: deps.secretBox } : {},
      ),
    };
  });

  mountJson(router, routes.getOrganization, mw, async ({ principal, params, query }) => {
    const org = await orgAccess(deps, principal, params.orgId);
    const withSecret = query.include === 'jwtSecret' && org.role === 'ADMIN';
    return { data: toOrganization(org, withSecret ? { jwtSecretFrom: deps.secretBox } : {}) };
  });
}
