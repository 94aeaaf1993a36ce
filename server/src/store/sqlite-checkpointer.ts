import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

// Runs in the worker, as CommonJS: its own connection, PASSIVE checkpoints on a timer.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const describe = (err) => String((err && (err.message || err.code)) || err);
let db;
try {
  db = new Database(workerData.file, { fileMustExist: true });
  db.pragma('busy_timeout = 1000');
} catch (err) {
  parentPort.postMessage({ error: 'cannot open ' + workerData.file + ': ' + describe(err) });
  process.exit(1);
}
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    parentPort.postMessage({ error: describe(err) });
  }
}, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  /** Stops the worker after its current checkpoint; the connection it holds is closed. */
  close(): Promise<void>;
}

/**
 * Copies the WAL back into the database file from a worker thread, so that checkpoints
 * (page copies and two fsyncs, several ms each time) no longer stall the event loop in the
 * middle of a commit. PASSIVE: it never blocks the bridge's own connection, which keeps a
 * far-off automatic checkpoint of its own in case this worker falls behind or stops.
 * `onError` hears of a failed checkpoint or a dead worker.
 */
export function startCheckpointer(
  file: string,
  options: { everyMs?: number; onError?: (message: string) => void } = {},
): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { driver, file, everyMs: options.everyMs ?? 250 },
  });
  // It must never keep the process alive on its own.
  worker.unref();
  worker.on('message', (m: { error?: string }) => m.error && options.onError?.(m.error));
  worker.on('error', (err) => options.onError?.(err.message));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    async close() {
      // Referenced again, so the process waits for it to finish rather than exiting mid-close.
      worker.ref();
      worker.postMessage('close');
      await exited;
    },
  };
}
