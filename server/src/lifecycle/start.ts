import type { Deps } from '../deps';
import { startInProcess } from './in-process';
import { startPgBoss } from './pg-boss';

/**
 * Starts this instance's health checks and syncs (unless BRIDGE_BACKGROUND_JOBS=false): on
 * pg-boss when the store is PostgreSQL (several instances), in process on SQLite (one).
 */
export async function startBackgroundJobs(deps: Deps): Promise<void> {
  if (!deps.config.backgroundJobs) return;
  deps.lifecycle =
    deps.store.engine === 'postgres' ? await startPgBoss(deps) : startInProcess(deps);
}
