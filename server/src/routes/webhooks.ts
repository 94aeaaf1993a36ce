import { routes } from '@bridgekit/contract';
import type { RequestHandler, Router } from 'express';
import type { Deps } from '../deps';
import { orgAccess, requireAdmin } from '../domain/access';
import { DEFAULT_LIMIT, toPage } from '../domain/pagination';
import { mountJson } from '../http/route';
import {
  createEndpoint,
  deleteEndpoint,
  endpointNotFound,
  rotateEndpointSecret,
  toWebhookDelivery,
  toWebhookEndpoint,
  updateEndpoint,
} from '../webhooks/endpoints';
import { recordTestEvent } from '../webhooks/events';
import { findEndpoint, listDeliveries, listEndpoints } from '../webhooks/store';

/** The webhook endpoints of an organization: ADMIN, API key only. */
export function webhookRoutes(
  router: Router,
  deps: Deps,
  mw: { auth: RequestHandler; body: RequestHandler },
) {
  const { db } = deps.store;
  const adminOrg = async (principal: Parameters<typeof orgAccess>[1], orgId: string) => {
    const org = await orgAccess(deps, principal, orgId);
    requireAdmin(org);
    return org;
  };
  const endpointOf = async (orgId: string, id: string) => {
    const row = await findEndpoint(db, orgId, id);
    if (!row) throw endpointNotFound();
    return row;
  };
  const show = (row: Parameters<typeof toWebhookEndpoint>[0]) => toWebhookEndpoint(row, deps.now());

  mountJson(router, routes.listWebhookEndpoints, mw, async ({ principal, params, query }) => {
    const org = await adminOrg(principal, params.orgId);
    const limit = query.limit ?? DEFAULT_LIMIT;
    return toPage(await listEndpoints(db, org.id, { cursor: query.cursor, limit }), limit, show);
  });

  mountJson(router, routes.createWebhookEndpoint, mw, async ({ principal, params, body }) => {
    const org = await adminOrg(principal, params.orgId);
    const { row, secret } = await createEndpoint(deps, org.id, body);
    return { data: { ...show(row), secret } };
  });

  mountJson(router, routes.getWebhookEndpoint, mw, async ({ principal, params }) => {
    const org = await adminOrg(principal, params.orgId);
    return { data: show(await endpointOf(org.id, params.id)) };
  });

  mountJson(router, routes.updateWebhookEndpoint, mw, async ({ principal, params, body }) => {
    const org = await adminOrg(principal, params.orgId);
    return { data: show(await updateEndpoint(deps, org.id, params.id, body)) };
  });

  mountJson(router, routes.deleteWebhookEndpoint, mw, async ({ principal, params }) => {
    const org = await adminOrg(principal, params.orgId);
    return { data: show(await deleteEndpoint(deps, org.id, params.id)) };
  });

  mountJson(router, routes.rotateWebhookSecret, mw, async ({ principal, params }) => {
    const org = await adminOrg(principal, params.orgId);
    const { row, secret } = await rotateEndpointSecret(deps, org.id, params.id);
    return { data: { ...show(row), secret } };
  });

  mountJson(router, routes.testWebhookEndpoint, mw, async ({ principal, params }) => {
    const org = await adminOrg(principal, params.orgId);
    const endpoint = await endpointOf(org.id, params.id);
    const delivery = await recordTestEvent(db, org.id, endpoint.id, deps.now());
    return { data: toWebhookDelivery(delivery) };
  });

  mountJson(router, routes.listWebhookDeliveries, mw, async ({ principal, params, query }) => {
    const org = await adminOrg(principal, params.orgId);
    const endpoint = await endpointOf(org.id, params.id);
    const limit = query.limit ?? DEFAULT_LIMIT;
    const rows = await listDeliveries(db, endpoint.id, { cursor: query.cursor, limit });
    return toPage(rows, limit, toWebhookDelivery);
  });
}
