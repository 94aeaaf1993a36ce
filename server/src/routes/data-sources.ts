import { routes } from '@bridgekit/contract';
import type { RequestHandler, Router } from 'express';
import { ApiError } from '../api-error';
import type { Deps } from '../deps';
import { orgAccess, requireAdmin } from '../domain/access';
import {
  createDataSource,
  deleteDataSource,
  getDataSource,
  updateDataSource,
} from '../domain/data-sources';
import { DEFAULT_LIMIT, toPage } from '../domain/pagination';
import { toDataSource } from '../domain/serialize';
import { mountJson } from '../http/route';
import { listDataSources } from '../store/data-sources';
import { verifyConnection } from '../verify/verify';

export function dataSourceRoutes(
  router: Router,
  deps: Deps,
  mw: { auth: RequestHandler; body: RequestHandler },
) {
  mountJson(router, routes.listDataSources, mw, async ({ principal, params, query }) => {
    const org = await orgAccess(deps, principal, params.orgId);
    const limit = query.limit ?? DEFAULT_LIMIT;
    const rows = await listDataSources(deps.store.db, org.id, { cursor: query.cursor, limit });
    return toPage(rows, limit, toDataSource);
  });

  mountJson(router, routes.createDataSource, mw, async ({ principal, params, body }) => {
    const org = await orgAccess(deps, principal, params.orgId);
    requireAdmin(org);
    return { data: toDataSource(await createDataSource(deps, org.id, body)) };
  });

  // Registered before `/{id}` so "verify" is never read as an id.
  mountJson(router, routes.verifyDataSource, mw, async ({ req, res, principal, params, body }) => {
    const org = await orgAccess(deps, principal, params.orgId);
    requireAdmin(org);
    await deps.limits.verify.hit(`verify:${org.id}`, res);
    const outcome = await verifyConnection(body, {
      timeoutMs: deps.config.verifyTimeoutMs,
      allowPrivateNetworks: deps.config.allowPrivateNetworks,
      serviceIp: deps.config.serviceIp,
    });
    if (!outcome.ok) {
      req.log.info({ orgId: org.id, reason: outcome.reason }, 'verify failed');
      throw new ApiError('VerificationFailed', outcome.detail, {
        fieldErrors: outcome.fieldErrors,
      });
    }
    return { data: { success: true } as const };
  });

  mountJson(router, routes.getDataSource, mw, async ({ principal, params }) => {
    const org = await orgAccess(deps, principal, params.orgId);
    return { data: toDataSource(await getDataSource(deps, org.id, params.id)) };
  });

  mountJson(router, routes.updateDataSource, mw, async ({ principal, params, body }) => {
    const org = await orgAccess(deps, principal, params.orgId);
    requireAdmin(org);
    return { data: toDataSource(await updateDataSource(deps, org.id, params.id, body)) };
  });

  mountJson(router, routes.deleteDataSource, mw, async ({ principal, params }) => {
    const org = await orgAccess(deps, principal, params.orgId);
    requireAdmin(org);
    return { data: toDataSource(await deleteDataSource(deps, org.id, params.id)) };
  });
}
