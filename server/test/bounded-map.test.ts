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

  it('refuses a bound that is not a positive integer', () => {
    expect(() => new BoundedMap(0)).toThrow('max must be a positive integer');
  });
});
