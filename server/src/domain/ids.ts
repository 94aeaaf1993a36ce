import { pooledRandomBytes } from './random-pool';

// Crockford base32 is in ASCII order, so ids compare like their creation times.
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
let lastTime = -1;
let lastRandom: number[] = [];

function encodeTime(ms: number): string {
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

function nextRandom(now: number): number[] {
  if (now === lastTime) {
    // Same millisecond: increment so ids made in one process stay strictly ordered.
    const r = [...lastRandom];
    for (let i = r.length - 1; i >= 0; i--) {
      if (r[i]! < 31) {
        r[i]! += 1;
        return r;
      }
      r[i] = 0;
    }
  }
  return [...pooledRandomBytes(16)].map((b) => b % 32);
}

/** A new id like `org_01JD…`: 48-bit time + 80 random bits, monotonic within this process. */
export function newId(
  prefix: 'org' | 'ds' | 'mem' | 'usr' | 'key' | 'whe' | 'msg' | 'whd',
): string {
  const now = Math.max(Date.now(), lastTime);
  lastRandom = nextRandom(now);
  lastTime = now;
  return `${prefix}_${encodeTime(now)}${lastRandom.map((n) => ALPHABET[n]).join('')}`;
}
