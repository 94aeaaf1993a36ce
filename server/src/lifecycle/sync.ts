import type { Dialect, VERIFY_CODES } from '@bridgekit/contract';
import type { Deps } from '../deps';
import { saveCatalog } from '../store/catalog';
import {
  claimSync,
  findDataSourceById,
  recordSyncFailure,
  releaseSync,
} from '../store/data-sources';
import type { Db } from '../store/db';
import { codesOf } from '../verify/failure-codes';
import { recordEvent } from '../webhooks/events';
import { readCatalog } from './catalog';
import { connectStored } from './connect';

/**
 * What became of a sync: it ran (whatever its verdict), another holds the lease, the record is
 * gone, or a shutdown handed it back unfinished.
 */
export type SyncResult = 'ran' | 'busy' | 'gone' | 'handed-back';

// A sync's lease outlives its connection deadline by this much (the catalog's write comes
// after), at most twice the deadline: config.ts keeps that within one sync interval.
const leaseMs = (timeoutMs: number) => timeoutMs + Math.min(30_000, timeoutMs);

const UNEXPECTED = 'The sync failed unexpectedly; it will be retried';

/**
 * Reads the data source's catalog into the store: SYNCING while it runs, then SUCCEEDED (with
 * the catalog) or FAILED (with verify's wording of the failure, never a secret). It holds the
 * record's sync lease meanwhile, so one data source never syncs twice at once; a lease older
 * than the sync deadline (a process killed mid-sync) is taken over. The caller holds a
 * connection slot.
 */
export async function syncDataSource(
  deps: Deps,
  id: string,
  handBack?: AbortSignal,
): Promise<SyncResult> {
  const now = deps.now();
  const timeoutMs = deps.config.syncTimeoutSeconds * 1000;
  const startedAt = now.toISOString();
  const staleBefore = new Date(now.getTime() - leaseMs(timeoutMs)).toISOString();
  const before = await findDataSourceById(deps.store.db, id);
  if (!before) return 'gone';
  const row = await claimSync(deps.store.db, id, startedAt, staleBefore);
  if (!row) return (await findDataSourceById(deps.store.db, id)) ? 'busy' : 'gone';
  try {
    const limits = { timeoutMs, maxReadBytes: deps.config.syncMaxReadBytes };
    const reading = connectStored(deps, row, limits, (connection) =>
      readCatalog(row.dialect as Dialect, connection, deps.config.syncMaxTables),
    );
    const outcome = await untilAborted(reading, handBack);
    if (outcome === 'aborted') {
      reading.catch(() => {});
      await releaseSync(deps.store.db, id, startedAt, before.lastSyncStatus);
      deps.log.info({ dataSourceId: id }, 'sync handed back: shutting down');
      return 'handed-back';
    }
    if (!outcome.ok) {
      deps.log.info({ dataSourceId: id, reason: outcome.reason }, 'sync failed');
      await syncFailed(
        deps,
        row.organizationId,
        id,
        startedAt,
        outcome.detail,
        codesOf(outcome).code,
      );
      return 'ran';
    }
    const readAt = deps.now().toISOString();
    const catalog = outcome.value;
    const data = {
      organizationId: row.organizationId,
      dataSourceId: id,
      tableCount: catalog.tables.length,
      columnCount: catalog.tables.reduce((n, t) => n + t.columns.length, 0),
      truncated: catalog.truncated,
    };
    await saveCatalog(deps.store.db, id, startedAt, catalog, readAt, (tx: Db) =>
      recordEvent(tx, row.organizationId, 'data_source.sync_succeeded', data, deps.now()),
    );
    return 'ran';
  } catch (err) {
    deps.log.error({ err, dataSourceId: id }, 'sync failed unexpectedly');
    await syncFailed(deps, row.organizationId, id, startedAt, UNEXPECTED, 'internal_error').catch(
      () => {},
    );
    return 'ran';
  }
}

/** Ends the sync as FAILED and records `data_source.sync_failed`, in one transaction. */
function syncFailed(
  deps: Deps,
  orgId: string,
  id: string,
  startedAt: string,
  detail: string,
  failureCode: (typeof VERIFY_CODES)[number] | 'internal_error',
) {
  return deps.store.db.transaction().execute(async (tx) => {
    const ended = await recordSyncFailure(tx, id, startedAt, detail);
    if (!ended) return;
    const data = { organizationId: orgId, dataSourceId: id, failureCode };
    await recordEvent(tx, orgId, 'data_source.sync_failed', data, deps.now());
  });
}

/** `work`'s result, or `aborted` as soon as `signal` aborts (the work is left to finish alone). */
function untilAborted<T>(
  work: Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T | 'aborted'> {
  if (!signal) return work;
  if (signal.aborted) return Promise.resolve('aborted');
  return new Promise((resolve, reject) => {
    const abort = () => resolve('aborted');
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}
