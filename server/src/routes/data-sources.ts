import { routes } from '@bridgekit/contract';
import type { RequestHandler, Router } from 'express';
import { ApiError, notFound } from '../api-error';
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
import { chargeVerify } from '../domain/verify-budget';
import { sendRateLimit } from '../http/rate-limit';
import { mountJson, type RouteContext } from '../http/route';
import { checkHealth } from '../lifecycle/health';
import { catalogPage } from '../store/catalog';
import { listDataSources } from '../store/data-sources';
import { verificationFailed } from '../verify/failure-codes';
import { checkSshKeyInput } from '../verify/ssh-key-input';
import { type VerifyOutcome, verifyConnection } from '../verify/verify';

/** Every connection slot of the process is taken: answered at once, never queued. */
const connectionsBusy = () =>
  new ApiError('TooManyRequests', 'Too many connection attempts in progress; retry in 1 s', {
    code: 'connections_busy',
    params: { retryAfter: 1 },
    headers: { 'Retry-After': '1' },
  });

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
    checkSshKeyInput(body);
    const row = await createDataSource(deps, org.id, body);
    deps.lifecycle.requestSync(row.id);
    return { data: toDataSource(row) };
  });

  // Registered before `/{id}` so "verify" is never read as an id.
  mountJson(router, routes.verifyDataSource, mw, verifyHandler(deps));

  mountJson(router, routes.getDataSource, mw, async ({ principal, params }) => {
    const org = await orgAccess(deps, principal, params.orgId);
    return { data: toDataSource(await getDataSource(deps, org.id, params.id)) };
  });

  mountJson(router, routes.updateDataSource, mw, async ({ principal, params, body }) => {
    const org = await orgAccess(deps, principal, params.orgId);
    requireAdmin(org);
    checkSshKeyInput(body);
    const { row, connectionChanged } = await updateDataSource(deps, org.id, params.id, body);
    if (connectionChanged) deps.lifecycle.requestSync(row.id);
    return { data: toDataSource(row) };
  });

  mountJson(router, routes.deleteDataSource, mw, async ({ principal, params }) => {
    const org = await orgAccess(deps, principal, params.orgId);
    requireAdmin(org);
    return { data: toDataSource(await deleteDataSource(deps, org.id, params.id)) };
  });

  mountJson(router, routes.checkDataSourceHealth, mw, checkHealthHandler(deps));

  mountJson(router, routes.syncDataSource, mw, async ({ principal, params }) => {
    const org = await orgAccess(deps, principal, params.orgId);
    requireAdmin(org);
    const row = await getDataSource(deps, org.id, params.id);
    deps.lifecycle.requestSync(row.id);
    return { data: toDataSource(row) };
  });

  mountJson(router, routes.getDataSourceSchema, mw, schemaHandler(deps));
}

type Context<R extends keyof typeof routes> = RouteContext<(typeof routes)[R]>;

/** Tries a connection without saving it: a connection slot at once or a 429, then the limits. */
function verifyHandler(deps: Deps) {
  return async ({ req, res, principal, params, body }: Context<'verifyDataSource'>) => {
    const org = await orgAccess(deps, principal, params.orgId);
    requireAdmin(org);
    checkSshKeyInput(body);
    // The slot first: a refusal then costs no rate-limit round trip and no caller's budget.
    const release = deps.connectionSlots.tryAcquire();
    if (!release) throw connectionsBusy();
    let outcome: VerifyOutcome;
    try {
      // Per organization and per person: no one multiplies verifies by organizations or identities.
      sendRateLimit(await chargeVerify(deps, principal, org.id), res);
      outcome = await verifyConnection(body, {
        timeoutMs: deps.config.verifyTimeoutMs,
        allowPrivateNetworks: deps.config.allowPrivateNetworks,
        serviceIp: deps.config.serviceIp,
      });
    } finally {
      release();
    }
    if (!outcome.ok) {
      req.log.info({ orgId: org.id, reason: outcome.reason }, 'verify failed');
      throw verificationFailed(outcome);
    }
    return { data: { success: true } as const };
  };
}

/** Checks a saved data source's health now. */
function checkHealthHandler(deps: Deps) {
  return async ({ res, principal, params }: Context<'checkDataSourceHealth'>) => {
    const org = await orgAccess(deps, principal, params.orgId);
    requireAdmin(org);
    const row = await getDataSource(deps, org.id, params.id);
    // As a verify: a slot now or a 429, and the verify rate limits.
    const release = deps.connectionSlots.tryAcquire();
    if (!release) throw connectionsBusy();
    try {
      sendRateLimit(await chargeVerify(deps, principal, org.id), res);
      const checked = await checkHealth(deps, row);
      if (!checked) throw notFound('Data source', 'data_source_not_found');
      return { data: toDataSource(checked) };
    } finally {
      release();
    }
  };
}

/** A page of the data source's catalog: its tables by position, each with its columns. */
function schemaHandler(deps: Deps) {
  return async ({ principal, params, query }: Context<'getDataSourceSchema'>) => {
    const org = await orgAccess(deps, principal, params.orgId);
    const row = await getDataSource(deps, org.id, params.id);
    const limit = query.limit ?? DEFAULT_LIMIT;
    const cursor = query.cursor === undefined ? undefined : Number(query.cursor);
    const { tables, columns } = await catalogPage(deps.store.db, row.id, { cursor, limit });
    const shown = tables.slice(0, limit);
    const hasMore = tables.length > limit;
    const byPosition = new Map(
      shown.map((t) => [
        t.position,
        {
          schema: t.schemaName,
          name: t.tableName,
          kind: t.kind as 'TABLE' | 'VIEW',
          columns: [] as { name: string; type: string; nullable: boolean }[],
        },
      ]),
    );
    for (const c of columns) {
      byPosition
        .get(c.tablePosition)
        ?.columns.push({ name: c.columnName, type: c.columnType, nullable: Boolean(c.nullable) });
    }
    return {
      data: {
        dataSourceId: row.id,
        readAt: row.catalogReadAt,
        truncated: Boolean(row.catalogTruncated),
        tableCount: row.catalogTableCount,
        tables: [...byPosition.values()],
      },
      pagination: {
        nextCursor: hasMore ? String(shown.at(-1)?.position) : null,
        hasMore,
      },
    };
  };
}
