import type { Deps } from '../deps';
import { type DataSourceRow, recordHealth } from '../store/data-sources';
import { connectStored } from './connect';

/**
 * Checks one data source now (connect as verify does, `SELECT 1`, close) and records the
 * verdict: HEALTHY, or UNHEALTHY with verify's wording of the failure (never a secret). The
 * caller holds a connection slot. Undefined when the data source was deleted meanwhile.
 */
export async function checkHealth(
  deps: Deps,
  row: DataSourceRow,
): Promise<DataSourceRow | undefined> {
  const limits = { timeoutMs: deps.config.verifyTimeoutMs };
  const outcome = await connectStored(deps, row, limits, (connection) =>
    connection.query('SELECT 1'),
  );
  const at = deps.now().toISOString();
  if (!outcome.ok) deps.log.info({ dataSourceId: row.id, reason: outcome.reason }, 'unhealthy');
  return recordHealth(deps.store.db, row.id, outcome.ok ? { at } : { at, error: outcome.detail });
}
