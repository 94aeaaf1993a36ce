import { describe, expect, it } from 'vitest';
import { pooledRandomBytes } from '../../src/domain/random-pool';

describe('pooledRandomBytes', () => {
  it('hands out fresh bytes every call, across refills of the pool', () => {
    const seen = new Set<string>();
    // 600 × 16 bytes: more than two refills of the 4 KiB pool.
    for (let i = 0; i < 600; i++) {
      const bytes = pooledRandomBytes(16);
      expect(bytes).toHaveLength(16);
      seen.add(bytes.toString('hex'));
    }
    expect(seen.size).toBe(600);
  });

  it('returns copies: changing one does not change the next', () => {
    const a = pooledRandomBytes(8);
    a.fill(0);
    expect(pooledRandomBytes(8).equals(Buffer.alloc(8))).toBe(false);
  });

  it('refuses more than the pool holds', () => {
    expect(() => pooledRandomBytes(4097)).toThrow(RangeError);
    expect(pooledRandomBytes(4096)).toHaveLength(4096);
  });
});
