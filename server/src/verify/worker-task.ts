import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { createSlots } from './slots';

/** A worker task that did not finish: stopped by the deadline (`aborted`), or failed. */
export class WorkerTaskError extends Error {
  constructor(readonly aborted: boolean) {
    super(aborted ? 'The task was stopped' : 'The task failed');
    this.name = 'WorkerTaskError';
  }
}

/**
 * Prepended to every task's source: the worker lowers its own thread's priority first (Linux:
 * setpriority on the thread id), so under contention the event loop's thread is scheduled
 * before a task's.
 */
const LOWER_PRIORITY = `
try {
  const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
  require('node:os').setPriority(tid, 19);
} catch {}
`;

// Tasks beyond this wait their turn (within their caller's deadline), leaving a core for the
// event loop however many CPU-heavy verifies arrive at once.
const running = createSlots({ limit: Math.max(1, availableParallelism() - 1) });

function start<T>(source: string, workerData: unknown, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(LOWER_PRIORITY + source, {
      eval: true,
      workerData,
      // The tasks need a few kB of state; a small heap keeps each worker's footprint small.
      resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
    });
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      outcome();
    };
    // Terminating stops the thread mid-computation; the caller hears of it once it is gone.
    const onAbort = () =>
      void worker.terminate().finally(() => settle(() => reject(new WorkerTaskError(true))));
    signal.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (out: T | null) => {
      void worker.terminate();
      settle(() => (out === null ? reject(new WorkerTaskError(false)) : resolve(out)));
    });
    worker.once('error', () => settle(() => reject(new WorkerTaskError(false))));
    worker.once('exit', () => settle(() => reject(new WorkerTaskError(signal.aborted))));
  });
}

/**
 * Runs `source` (CommonJS; reads `workerData`, posts one result, or `null` for a failure) in a
 * worker thread of its own, off the event loop. The worker is terminated when `signal` aborts:
 * the deadline stops the computation itself, not only the wait for it.
 */
export async function runInWorker<T>(
  source: string,
  workerData: unknown,
  signal: AbortSignal,
): Promise<T> {
  const release = await running.acquire(signal).catch(() => {
    throw new WorkerTaskError(true);
  });
  try {
    if (signal.aborted) throw new WorkerTaskError(true);
    return await start<T>(source, workerData, signal);
  } finally {
    release();
  }
}
