import type { KeyObject } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { hs256Key } from './hs256';

/**
 * HS256 keys by id, each made once from its secret; `secret` is only called on a miss, so a
 * key kept here needs no plaintext kept beside it (a KeyObject holds its bytes outside the JS
 * heap and never hands them to a log or a serializer).
 */
export function hmacKeyCache(max = 1000) {
  const keys = new LRUCache<string, KeyObject>({ max });
  return (id: string, secret: () => string | Uint8Array): KeyObject => {
    let key = keys.get(id);
    if (!key) {
      key = hs256Key(secret());
      keys.set(id, key);
    }
    return key;
  };
}
