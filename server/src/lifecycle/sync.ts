import type { Dialect } from '@bridgekit/contract';
import type { Deps } from '../deps';
import { saveCatalog } from '../store/catalog';
import { claimSync, findDataSourceById, recordSyncFailure } from '../store/data-sources';
import { readCatalog } from './catalog';
import { connectStored } from './connect';

/** What became of a sync: it ran (whatever its verdict), another holds the lease, or the record is gone. */
export type SyncResult = 'ran' | 'busy' | 'gone';

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
export async function syncDataSource(deps: Deps, id: string): Promise<SyncResult> {
  const now = deps.now();
  const timeoutMs = deps.config.syncTimeoutSeconds * 1000;
  const startedAt = now.toISOString();
  const staleBefore = new Date(now.getTime() - leaseMs(timeoutMs)).toISOString();
  const row = await claimSync(deps.store.db, id, startedAt, staleBefore);
  if (!row) return (await findDataSourceById(deps.store.db, id)) ? 'busy' : 'gone';
  try {
    const limits = { timeoutMs, maxReadBytes: deps.config.syncMaxReadBytes };
    const outcome = await connectStored(deps, row, limits, (connection) =>
      readCatalog(row.dialect as Dialect, connection, deps.config.syncMaxTables),
    );
    if (!outcome.ok) {
      deps.log.info({ dataSourceId: id, reason: outcome.reason }, 'sync failed');
      await recordSyncFailure(deps.store.db, id, startedAt, outcome.detail);
      return 'ran';
    }
    const readAt = deps.now().toISOString();
    await saveCatalog(deps.store.db, id, startedAt, outcome.value, readAt);
    return 'ran';
  } catch (err) {
    deps.log.error({ err, dataSourceId: id }, 'sync failed unexpectedly');
    await recordSyncFailure(deps.store.db, id, startedAt, UNEXPECTED).catch(() => {});
    return 'ran';
  }
}
