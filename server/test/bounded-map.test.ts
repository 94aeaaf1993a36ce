import { describe, expect, it } from 'vitest';
import { BoundedMap } from '../src/bounded-map';

describe('BoundedMap', () => {
  it('drops the oldest entry when a new key is added to a full map', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2).set('c', 3);
    expect([...map.keys()]).toEqual(['b', 'c']);
  });

  it('drops nothing when an existing key is replaced, and keeps its place', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2).set('a', 10);
    expect([...map.entries()]).toEqual([
      ['a', 10],
      ['b', 2],
    ]);
  });

  describe('with a weight bound', () => {
    const weighed = () =>
      new BoundedMap<string, number[]>(10, { maxWeight: 5, weigh: (rows) => rows.length });

    it('drops the oldest entries until the new one fits under the weight', () => {
      const map = weighed();
      map.set('a', [1, 2]).set('b', [1, 2]).set('c', [1]);
      expect(map.weight).toBe(5);
      map.set('d', [1, 2, 3]);
      expect([...map.keys()]).toEqual(['c', 'd']);
      expect(map.weight).toBe(4);
    });

    it('replaces a key in its place, counting only its new weight', () => {
      const map = weighed();
      map.set('a', [1, 2]).set('b', [1, 2]).set('a', [1, 2, 3]);
      expect([...map.keys()]).toEqual(['a', 'b']);
      expect(map.weight).toBe(5);
      map.set('b', [1, 2, 3]);
      expect([...map.keys()]).toEqual(['b']);
      expect(map.weight).toBe(3);
    });

    it('keeps a value heavier than the bound alone, and still bounds the count', () => {
      const map = weighed();
      map.set('a', [1]).set('big', [1, 2, 3, 4, 5, 6]);
      expect([...map.keys()]).toEqual(['big']);
      const counted = new BoundedMap<number, number[]>(2, {
        maxWeight: 100,
        weigh: (r) => r.length,
      });
      counted.set(1, [1]).set(2, [1]).set(3, [1]);
      expect([...counted.keys()]).toEqual([2, 3]);
      expect(counted.weight).toBe(2);
    });

    it('forgets the weight of what is deleted or cleared', () => {
      const map = weighed();
      map.set('a', [1, 2]).set('b', [1]);
      map.delete('a');
      map.delete('missing');
      expect(map.weight).toBe(1);
      map.clear();
      expect(map.weight).toBe(0);
    });
  });

  it('refuses a bound that is not a positive integer', () => {
    expect(() => new BoundedMap(0)).toThrow('max must be a positive integer');
  });
});
