import type { Deps } from '../deps';
import { type DataSourceRow, recordHealth } from '../store/data-sources';
import { codesOf } from '../verify/failure-codes';
import { recordEvent } from '../webhooks/events';
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
  const failureCode = outcome.ok ? null : codesOf(outcome).code;
  // The verdict and, when it differs from the one before, its event: one transaction.
  return deps.store.db.transaction().execute(async (tx) => {
    const before = await tx
      .selectFrom('dataSources')
      .select('lastHealthStatus')
      .where('id', '=', row.id)
      .$if(deps.store.engine === 'postgres', (q) => q.forUpdate())
      .executeTakeFirst();
    const updated = await recordHealth(
      tx,
      row.id,
      outcome.ok ? { at } : { at, error: outcome.detail },
    );
    if (updated && before && before.lastHealthStatus !== updated.lastHealthStatus) {
      const data = {
        organizationId: updated.organizationId,
        dataSourceId: updated.id,
        previousStatus: before.lastHealthStatus as 'HEALTHY' | 'UNHEALTHY' | null,
        status: updated.lastHealthStatus as 'HEALTHY' | 'UNHEALTHY',
        failureCode,
      };
      await recordEvent(tx, updated.organizationId, 'data_source.health_changed', data, deps.now());
    }
    return updated;
  });
}
