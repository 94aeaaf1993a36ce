import type { Deps } from '../deps';
import { startDispatcher } from '../webhooks/dispatcher';
import { startInProcess } from './in-process';
import { startPgBoss } from './pg-boss';

/**
 * Starts this instance's health checks, syncs and webhook deliveries (unless
 * BRIDGE_BACKGROUND_JOBS=false): on pg-boss when the store is PostgreSQL (several instances), in
 * process on SQLite (one); deliveries are claimed from the store's outbox by either.
 */
export async function startBackgroundJobs(deps: Deps): Promise<void> {
  if (!deps.config.backgroundJobs) return;
  const jobs = deps.store.engine === 'postgres' ? await startPgBoss(deps) : startInProcess(deps);
  const webhooks = startDispatcher(deps);
  deps.lifecycle = {
    requestSync: (id) => jobs.requestSync(id),
    async stop(handBack) {
      await Promise.all([jobs.stop(handBack), webhooks.stop()]);
    },
  };
}
