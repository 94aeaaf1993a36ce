import type { Deps } from '../deps';
import { type DispatcherOptions, startDispatcher, webhookWorker } from '../webhooks/dispatcher';
import { startInProcess } from './in-process';
import type { Lifecycle } from './lifecycle';
import { startPgBoss } from './pg-boss';

export interface JobsOptions {
  /** Health checks and syncs (default true); webhook deliveries always run. */
  dataSources?: boolean;
  webhooks?: DispatcherOptions;
}

/**
 * Starts the job engine, on pg-boss when the store is PostgreSQL (several instances), in
 * process on SQLite (one): the data sources' health checks and syncs, and webhook deliveries,
 * queued from the store's outbox by the dispatcher and sent by the engine's workers.
 */
export async function startJobs(deps: Deps, options: JobsOptions = {}): Promise<Lifecycle> {
  const engineOptions = {
    dataSources: options.dataSources ?? true,
    workers: [webhookWorker(deps, options.webhooks)],
  };
  const engine =
    deps.store.engine === 'postgres'
      ? await startPgBoss(deps, engineOptions)
      : startInProcess(deps, engineOptions);
  const dispatcher = startDispatcher(deps, engine, options.webhooks);
  return {
    requestSync: (id) => engine.requestSync(id),
    async stop(handBack) {
      // Nothing more queued, then the engine finishes (or, in process, gives back) the rest.
      await dispatcher.stop();
      await engine.stop(handBack);
    },
  };
}

/** Starts this instance's background work (unless BRIDGE_BACKGROUND_JOBS=false). */
export async function startBackgroundJobs(deps: Deps): Promise<void> {
  if (!deps.config.backgroundJobs) return;
  deps.lifecycle = await startJobs(deps);
}
