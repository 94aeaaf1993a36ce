import { routes } from '@bridgekit/contract';
import type { RequestHandler, Router } from 'express';
import { forbidden } from '../api-error';
import type { Deps } from '../deps';
import { orgAccess } from '../domain/access';
import { createOrganization } from '../domain/organizations';
import { DEFAULT_LIMIT, toPage } from '../domain/pagination';
import { toOrganization } from '../domain/serialize';
import { jsonBodyCache } from '../http/json-cache';
import { mountJson } from '../http/route';
import { listOrganizationsForUser, type OrganizationWithRole } from '../store/organizations';

export function organizationRoutes(
  router: Router,
  deps: Deps,
  mw: { auth: RequestHandler; body: RequestHandler },
) {
  // Pages without secrets, serialized, by caller and page, for as long as no organization or
  // membership changes anywhere (the store version): an org picker lists on every page load.
  const pages = jsonBodyCache<ReturnType<typeof orgPage>>();
  const orgPage = (rows: OrganizationWithRole[], limit: number, withSecret: boolean) =>
    toPage(rows, limit, (row) =>
      toOrganization(
        row,
        withSecret && row.role === 'ADMIN' ? { jwtSecretFrom: deps.secretBox } : {},
      ),
    );

  mountJson(router, routes.listOrganizations, mw, async ({ req, principal, query }) => {
    const limit = query.limit ?? DEFAULT_LIMIT;
    const onlyOrgId = principal.kind === 'session' ? principal.orgId : undefined;
    // The secret goes only to an API key: an embed session, whatever its role, never gets it.
    const withSecret = query.include === 'jwtSecret' && principal.kind === 'apiKey';
    const version = req.storeVersion ?? (await deps.store.version(['organizations', 'members']));
    const key = `${principal.userId}\n${onlyOrgId ?? ''}\n${query.cursor ?? ''}\n${limit}`;
    if (!withSecret) {
      const cached = pages.get(key, version);
      if (cached) return cached;
    }
    const rows = await listOrganizationsForUser(deps.store.db, principal.userId, {
      cursor: query.cursor,
      limit,
      onlyOrgId,
    });
    const page = orgPage(rows, limit, withSecret);
    return withSecret ? page : pages.set(key, version, page);
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
    const withSecret =
      query.include === 'jwtSecret' && org.role === 'ADMIN' && principal.kind === 'apiKey';
    return { data: toOrganization(org, withSecret ? { jwtSecretFrom: deps.secretBox } : {}) };
  });
}
