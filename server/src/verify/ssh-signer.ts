import type {
  BaseAgent,
  IdentityCallback,
  ParsedKey,
  SignCallback,
  SigningRequestOptions,
} from 'ssh2';
import { ssh2 } from './modules';
import { runInWorker } from './worker-task';

// ssh2's own choice of hash per key type, when the server's algorithms don't pick one.
const DEFAULT_HASH: Record<string, string | null> = {
  'ssh-rsa': 'sha1',
  'ssh-ed25519': null,
  'ecdsa-sha2-nistp256': 'sha256',
  'ecdsa-sha2-nistp384': 'sha384',
  'ecdsa-sha2-nistp521': 'sha512',
};

// What ssh2 does on the event loop for a `publickey` method (crypto.sign over the PEM), here in
// a worker: the signature's CPU cost, set by the key, never holds up other requests.
const SIGN_SOURCE = `
const { parentPort, workerData: w } = require('node:worker_threads');
const { sign } = require('node:crypto');
let out = null;
try { out = sign(w.hash, w.data, w.pem); } catch {}
parentPort.postMessage(out);
`;

/**
 * An SSH agent (ssh2's `agent` auth method) holding one parsed private key, whose signatures are
 * made in a worker thread terminated when `signal` aborts: the verify deadline stops a slow
 * signature mid-computation.
 */
export function workerSigner(key: ParsedKey, signal: AbortSignal): BaseAgent<ParsedKey> {
  const Base = ssh2().BaseAgent as unknown as new () => BaseAgent<ParsedKey>;
  const pem = key.getPrivatePEM();
  class WorkerSigner extends Base {
    getIdentities(cb: IdentityCallback<ParsedKey>) {
      cb(undefined, [key]);
    }
    sign(
      _pubKey: ParsedKey,
      data: Buffer,
      options: SigningRequestOptions | SignCallback,
      callback?: SignCallback,
    ) {
      const cb = (typeof options === 'function' ? options : callback) as SignCallback;
      const hash = (typeof options === 'object' && options.hash) || DEFAULT_HASH[key.type];
      runInWorker<Uint8Array>(SIGN_SOURCE, { hash: hash ?? null, data, pem }, signal).then(
        (signature) => cb(undefined, Buffer.from(signature)),
        (error: Error) => cb(error),
      );
    }
  }
  return new WorkerSigner();
}
