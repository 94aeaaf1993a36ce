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

/**
 * A queue of the job engine besides the data sources' own: jobs any instance sends, worked by
 * every instance that registered it (webhook deliveries).
 */
export interface QueueWorker<T> {
  /** The queue's name (on PostgreSQL, a pg-boss queue created with the store's migration). */
  name: string;
  /** Jobs of this queue in hand in this instance at once. */
  concurrency: number;
  /** How often an idle worker looks for jobs other instances sent (this one's wake it). */
  pollMs: number;
  /** Works one job; it settles when the job is done (a rejection is logged, never retried). */
  run(job: T): Promise<void>;
  /** Jobs sent but not started when the engine stops (in process only: they are dropped). */
  dropped?(jobs: T[]): Promise<void>;
}

/** What one engine runs: the data sources' jobs (unless false) and the queues of `workers`. */
export interface EngineOptions {
  dataSources: boolean;
  // biome-ignore lint/suspicious/noExplicitAny: each worker has its own job type
  workers: QueueWorker<any>[];
}

/** The engine's side of the extra queues: what sends to them. */
export interface JobEngine extends Lifecycle {
  /** Queues `jobs` on `queue`, due at once, and wakes this instance's worker of it. */
  send<T>(queue: string, jobs: readonly T[]): Promise<void>;
}
