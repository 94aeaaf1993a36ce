import { setMaxListeners } from 'node:events';
import type { Deps } from '../deps';
import { BUSY_RETRY_MS, type JobKind, paced, runJob, slotOf, sweepOpen } from './jobs';
import type { EngineOptions, JobEngine, QueueWorker } from './lifecycle';

interface Job {
  kind: JobKind;
  id: string;
  slot: Date | undefined;
}

/** Runs `fn` after `ms` on an unref'd timer, kept in `timers` until it fires. */
type Later = (ms: number, fn: () => void) => void;

/** What the sweeps need of the scheduler. */
interface Sweeps {
  deps: Deps;
  signal: AbortSignal;
  later: Later;
  enqueue(job: Job): void;
}

/**
 * The scheduler of a single process (SQLite): at the start of each health and sync interval it
 * queues every data source once; a job already queued or running for the same data source is
 * not queued twice. Jobs run as the shared connection slots allow. The workers' queues are
 * held in memory: what the process had not started when it stops is handed to `dropped`.
 */
export function startInProcess(deps: Deps, options: EngineOptions): JobEngine {
  const { config } = deps;
  const stopping = new AbortController();
  const handingBack = new AbortController();
  // Every queued job waits on it for a connection slot.
  setMaxListeners(0, stopping.signal, handingBack.signal);
  const timers = new Set<NodeJS.Timeout>();
  const later: Later = (ms, fn) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timer.unref();
    timers.add(timer);
  };
  const queue = jobQueue(deps, stopping.signal, handingBack.signal, later);
  const sweeps: Sweeps = { deps, signal: stopping.signal, later, enqueue: queue.enqueue };
  if (options.dataSources) {
    // Health now (the process just started); syncs from the next interval on, so a restart
    // does not re-read every catalog (a sync left SYNCING by a killed process is taken over then).
    every(sweeps, 'health', config.healthIntervalSeconds, true);
    every(sweeps, 'sync', config.syncIntervalSeconds, false);
  }
  const queues = new Map(options.workers.map((w) => [w.name, memoryQueue(deps, w)]));

  return {
    requestSync(id) {
      if (options.dataSources) queue.enqueue({ kind: 'sync', id, slot: undefined });
    },
    async send(name, jobs) {
      const target = queues.get(name);
      if (!target) throw new Error(`no worker for queue ${name}`);
      if (!stopping.signal.aborted) target.push(jobs);
      else await target.worker.dropped?.([...jobs]);
    },
    async stop(handBack) {
      handBack?.addEventListener('abort', () => handingBack.abort(), { once: true });
      stopping.abort(new Error('stopping'));
      for (const timer of timers) clearTimeout(timer);
      queue.pending.clear();
      await Promise.allSettled([
        ...queue.running.values(),
        ...[...queues.values()].map((q) => q.stop()),
      ]);
    },
  };
}

/** One worker's queue in memory: jobs run in arrival order, `concurrency` at a time. */
function memoryQueue<T>(deps: Deps, worker: QueueWorker<T>) {
  const waiting: T[] = [];
  const running = new Set<Promise<void>>();
  let stopped = false;
  function pump() {
    while (!stopped && running.size < worker.concurrency && waiting.length > 0) {
      const job = waiting.shift() as T;
      const run = worker
        .run(job)
        .catch((err) => deps.log.error({ err, queue: worker.name }, 'job failed'))
        .finally(() => {
          running.delete(run);
          pump();
        });
      running.add(run);
    }
  }
  return {
    worker,
    push(jobs: readonly T[]) {
      waiting.push(...jobs);
      pump();
    },
    async stop() {
      stopped = true;
      const left = waiting.splice(0);
      await Promise.allSettled(running);
      if (left.length > 0) await worker.dropped?.(left).catch(() => {});
    },
  };
}

/**
 * The jobs queued and running, one per kind and data source, run as the shared connection
 * slots allow.
 */
function jobQueue(deps: Deps, signal: AbortSignal, handBack: AbortSignal, later: Later) {
  const pending = new Map<string, Job>();
  const running = new Map<string, Promise<void>>();
  const rerun = new Set<string>();
  const concurrency = deps.connectionSlots.limit - deps.connectionSlots.reserved;

  function enqueue(job: Job) {
    if (signal.aborted) return;
    const key = `${job.kind}:${job.id}`;
    if (pending.has(key)) return;
    if (running.has(key)) {
      // A sync requested while one runs (a PATCH mid-sync) runs again after it.
      if (job.kind === 'sync' && !job.slot) rerun.add(key);
      return;
    }
    pending.set(key, job);
    pump();
  }

  function pump() {
    for (const [key, job] of pending) {
      if (running.size >= concurrency || signal.aborted) return;
      pending.delete(key);
      const run = runJob(deps, job.kind, job.id, job.slot, signal, handBack)
        .then((result) => {
          if (result === 'busy' && !job.slot) later(BUSY_RETRY_MS, () => enqueue(job));
        })
        .catch((err) => {
          if (!signal.aborted) deps.log.error({ err, job: job.kind }, 'data source job failed');
        })
        .finally(() => {
          running.delete(key);
          if (rerun.delete(key)) enqueue({ kind: 'sync', id: job.id, slot: undefined });
          pump();
        });
      running.set(key, run);
    }
  }

  return { enqueue, pending, running };
}

// Queues each data source at its due time within the interval (see paced).
async function sweep(sweeps: Sweeps, kind: JobKind, slot: Date, seconds: number) {
  const { deps, signal, later, enqueue } = sweeps;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => (ms > 0 ? later(ms, resolve) : resolve()));
  const start = deps.now().getTime();
  for await (const page of paced(deps, slot, seconds)) {
    for (const { id, delayMs } of page) {
      await sleep(start + delayMs - deps.now().getTime());
      if (signal.aborted) return;
      enqueue({ kind, id, slot });
    }
  }
}

// At each interval's start (aligned to the epoch, like the PostgreSQL engine's slots); at
// start-up in this one if it is young enough (see sweepOpen), else from the next.
function every(sweeps: Sweeps, kind: JobKind, seconds: number, now: boolean) {
  const { deps, later } = sweeps;
  const nextSlot = () => slotOf(deps.now(), seconds).getTime() + seconds * 1000;
  const tick = () => {
    const slot = slotOf(deps.now(), seconds);
    sweep(sweeps, kind, slot, seconds)
      .catch((err) => deps.log.error({ err, job: kind }, 'data source sweep failed'))
      .finally(() => later(Math.max(nextSlot() - deps.now().getTime(), 0), tick));
  };
  if (now && sweepOpen(slotOf(deps.now(), seconds), seconds, deps.now())) tick();
  else later(nextSlot() - deps.now().getTime(), tick);
}
