import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { createSlots } from './slots';

/**
 * The most bcrypt-pbkdf rounds an OpenSSH private key may ask for (`ssh-keygen -a N`; 16 by
 * default, 64 or 100 in hardening guides). The count comes from the key, so it is untrusted: a
 * round costs ~9 ms of one core per 32 bytes derived here (~18 ms for an aes256 key), so the
 * cap bounds one key at ~2.4 s of CPU.
 */
export const MAX_KDF_ROUNDS = 128;

/** A derivation that did not finish: stopped by the deadline (`aborted`), or failed. */
export class KdfError extends Error {
  constructor(readonly aborted: boolean) {
    super(aborted ? 'The key derivation was stopped' : 'The key derivation failed');
    this.name = 'KdfError';
  }
}

// bcrypt_pbkdf is pure JS in ssh2's dependency tree: it runs in a worker, off the event loop.
const BCRYPT_PATH = createRequire(createRequire(import.meta.url).resolve('ssh2')).resolve(
  'bcrypt-pbkdf',
);
// The worker lowers its own thread's priority first (Linux: setpriority on the thread id), so
// under contention the event loop's thread is scheduled before a derivation's.
const WORKER_SOURCE = `
const { parentPort, workerData: w } = require('node:worker_threads');
try {
  const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
  require('node:os').setPriority(tid, 19);
} catch {}
const { pbkdf } = require(w.bcryptPath);
const out = new Uint8Array(w.length);
const r = pbkdf(w.passphrase, w.passphrase.length, w.salt, w.salt.length, out, w.length, w.rounds);
parentPort.postMessage(r === 0 ? out : null);
`;

// Derivations beyond this wait their turn (within the verify's deadline), leaving a core for
// the event loop however many verifies with encrypted keys arrive at once.
const derivations = createSlots({ limit: Math.max(1, availableParallelism() - 1) });

export interface KdfInput {
  passphrase: Buffer;
  salt: Buffer;
  rounds: number;
  length: number;
}

function derive(input: KdfInput, signal: AbortSignal): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { bcryptPath: BCRYPT_PATH, ...input },
      // bcrypt needs a few kB of state; a small heap keeps each worker's footprint small.
      resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
    });
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      outcome();
    };
    // Terminating stops the thread mid-loop; the caller hears of it once the thread is gone.
    const onAbort = () =>
      void worker.terminate().finally(() => settle(() => reject(new KdfError(true))));
    signal.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (out: Uint8Array | null) => {
      void worker.terminate();
      settle(() => (out === null ? reject(new KdfError(false)) : resolve(Buffer.from(out))));
    });
    worker.once('error', () => settle(() => reject(new KdfError(false))));
    worker.once('exit', () => settle(() => reject(new KdfError(signal.aborted))));
  });
}

/** bcrypt-pbkdf (OpenSSH's key KDF) in a worker thread, stopped when `signal` aborts. */
export async function bcryptPbkdf(input: KdfInput, signal: AbortSignal): Promise<Buffer> {
  const release = await derivations.acquire(signal).catch(() => {
    throw new KdfError(true);
  });
  try {
    if (signal.aborted) throw new KdfError(true);
    return await derive(input, signal);
  } finally {
    release();
  }
}
