import { createRequire } from 'node:module';
import { runInWorker, WorkerTaskError } from './worker-task';

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
const WORKER_SOURCE = `
const { parentPort, workerData: w } = require('node:worker_threads');
const { pbkdf } = require(w.bcryptPath);
const out = new Uint8Array(w.length);
const r = pbkdf(w.passphrase, w.passphrase.length, w.salt, w.salt.length, out, w.length, w.rounds);
parentPort.postMessage(r === 0 ? out : null);
`;

export interface KdfInput {
  passphrase: Buffer;
  salt: Buffer;
  rounds: number;
  length: number;
}

/** bcrypt-pbkdf (OpenSSH's key KDF) in a worker thread, stopped when `signal` aborts. */
export async function bcryptPbkdf(input: KdfInput, signal: AbortSignal): Promise<Buffer> {
  try {
    const out = await runInWorker<Uint8Array>(
      WORKER_SOURCE,
      { bcryptPath: BCRYPT_PATH, ...input },
      signal,
    );
    return Buffer.from(out);
  } catch (error) {
    throw error instanceof WorkerTaskError ? new KdfError(error.aborted) : error;
  }
}
