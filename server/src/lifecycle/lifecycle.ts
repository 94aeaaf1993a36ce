/**
 * The background work of data sources: scheduled health checks and syncs, requested syncs
 * (run by in-process.ts or pg-boss.ts, on the helpers of jobs.ts).
 */
export interface Lifecycle {
  /** Syncs the data source soon (after create, a connection change, `POST …/sync`). */
  requestSync(id: string): void;
  /**
   * Stops scheduling and taking work; waits for work in progress. When `handBack` aborts, syncs
   * still running give their lease back (and, on PostgreSQL, their job to another instance).
   */
  stop(handBack?: AbortSignal): Promise<void>;
}

/** The lifecycle of an instance that runs no background work (BRIDGE_BACKGROUND_JOBS=false). */
export const noLifecycle: Lifecycle = { requestSync() {}, async stop() {} };
