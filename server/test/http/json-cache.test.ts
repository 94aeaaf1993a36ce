import { describe, expect, it } from 'vitest';
import { jsonBodyCache } from '../../src/http/json-cache';

const now = new Date('2026-01-01T00:00:00Z');
const text = (body: { bytes: Buffer } | undefined) => body?.bytes.toString();

describe('jsonBodyCache', () => {
  it('serves a body only under the version it was built for', () => {
    const cache = jsonBodyCache<{ n: number }>();
    cache.set('k', 'v1', { n: 1 });
    expect(text(cache.get('k', 'v1', now))).toBe('{"n":1}');
    expect(cache.get('k', 'v2', now)).toBeUndefined();
    expect(cache.get('other', 'v1', now)).toBeUndefined();
  });

  it('stops serving a body at its until instant', () => {
    const cache = jsonBodyCache<number>();
    cache.set('k', 'v', 1, now.getTime() + 1000);
    expect(text(cache.get('k', 'v', new Date(now.getTime() + 999)))).toBe('1');
    expect(cache.get('k', 'v', new Date(now.getTime() + 1000))).toBeUndefined();
  });

  it('keeps at most max bodies, dropping the least recently used first', () => {
    const cache = jsonBodyCache<string>(2);
    cache.set('a', 'v', 'A');
    cache.set('b', 'v', 'B');
    expect(text(cache.get('a', 'v', now))).toBe('"A"'); // a is now the most recently used
    cache.set('c', 'v', 'C');
    expect(cache.get('b', 'v', now)).toBeUndefined();
    expect(text(cache.get('a', 'v', now))).toBe('"A"');
    expect(text(cache.get('c', 'v', now))).toBe('"C"');
  });

  it('replaces a body under the same key without dropping another', () => {
    const cache = jsonBodyCache<string>(2);
    cache.set('a', 'v1', 'A1');
    cache.set('b', 'v1', 'B');
    cache.set('a', 'v2', 'A2');
    expect(text(cache.get('a', 'v2', now))).toBe('"A2"');
    expect(text(cache.get('b', 'v1', now))).toBe('"B"');
  });
});
