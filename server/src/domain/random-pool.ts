import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let offset = POOL_BYTES;

/**
 * `n` bytes from the CSPRNG, handed out of a 4 KiB buffer that one call refills: for the
 * identifiers made on every sign-in (row ids, session ids), where a `getrandom` call each cost
 * more than the rest of making the id. They are as unpredictable as `randomBytes`'s; secrets
 * (keys, handoff codes) still take their own `randomBytes`.
 */
export function pooledRandomBytes(n: number): Buffer {
  if (n > POOL_BYTES) throw new RangeError(`at most ${POOL_BYTES} pooled random bytes at once`);
  if (offset + n > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const bytes = Buffer.from(pool.subarray(offset, offset + n));
  offset += n;
  return bytes;
}
