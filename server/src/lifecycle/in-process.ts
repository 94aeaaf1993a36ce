import { setMaxListeners } from 'node:events';
import type { Deps } from '../deps';
import {
  BUSY_RETRY_MS,
  type JobKind,
  type Lifecycle,
  paced,
  runJob,
  slotOf,
  sweepOpen,
} from './jobs';

interface Job {
  kind: JobKind;
  id: string;
  slot: Date | undefined;
}

/**
 * The scheduler of a single process (SQLite): at the start of each health and sync interval it
 * queues every data source once; a job already queued or running for the same data source is
 * not queued twice. Jobs run as the shared connection slots allow.
 */
export function startInProcess(deps: Deps): Lifecycle {
  const { config, log } = deps;
  const stopping = new AbortController();
  // Every queued job waits on it for a connection slot.
  setMaxListeners(0, stopping.signal);
  const pending = new Map<string, Job>();
  const running = new Map<string, Promise<void>>();
  const rerun = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();
  const concurrency = deps.connectionSlots.limit - deps.connectionSlots.reserved;

  const later = (ms: number, fn: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timer.unref();
    timers.add(timer);
  };

  function enqueue(job: Job) {
    if (stopping.signal.aborted) return;
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
      if (running.size >= concurrency || stopping.signal.aborted) return;
      pending.delete(key);
      const run = runJob(deps, job.kind, job.id, job.slot, stopping.signal)
        .then((result) => {
          if (result === 'busy' && !job.slot) later(BUSY_RETRY_MS, () => enqueue(job));
        })
        .catch((err) => {
          if (!stopping.signal.aborted) log.error({ err, job: job.kind }, 'data source job failed');
        })
        .finally(() => {
          running.delete(key);
          if (rerun.delete(key)) enqueue({ kind: 'sync', id: job.id, slot: undefined });
          pump();
        });
      running.set(key, run);
    }
  }

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => (ms > 0 ? later(ms, resolve) : resolve()));

  // Queues each data source at its due time within the interval (see paced).
  async function sweep(kind: JobKind, slot: Date, seconds: number) {
    const start = deps.now().getTime();
    for await (const page of paced(deps, slot, seconds)) {
      for (const { id, delayMs } of page) {
        await sleep(start + delayMs - deps.now().getTime());
        if (stopping.signal.aborted) return;
        enqueue({ kind, id, slot });
      }
    }
  }

  // At each interval's start (aligned to the epoch, like the PostgreSQL engine's slots); at
  // start-up in this one if it is young enough (see sweepOpen), else from the next.
  function every(kind: JobKind, seconds: number, now: boolean) {
    const nextSlot = () => slotOf(deps.now(), seconds).getTime() + seconds * 1000;
    const tick = () => {
      const slot = slotOf(deps.now(), seconds);
      sweep(kind, slot, seconds)
        .catch((err) => log.error({ err, job: kind }, 'data source sweep failed'))
        .finally(() => later(Math.max(nextSlot() - deps.now().getTime(), 0), tick));
    };
    if (now && sweepOpen(slotOf(deps.now(), seconds), seconds, deps.now())) tick();
    else later(nextSlot() - deps.now().getTime(), tick);
  }
  // Health now (the process just started); syncs from the next interval on, so a restart does
  // not re-read every catalog (a sync left SYNCING by a killed process is taken over then).
  every('health', config.healthIntervalSeconds, true);
  every('sync', config.syncIntervalSeconds, false);

  return {
    requestSync(id) {
      enqueue({ kind: 'sync', id, slot: undefined });
    },
    async stop() {
      stopping.abort(new Error('stopping'));
      for (const timer of timers) clearTimeout(timer);
      pending.clear();
      await Promise.allSettled(running.values());
    },
  };
}
