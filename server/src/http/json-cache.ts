import { LRUCache } from 'lru-cache';

/** A response body serialized once, sent as is (see mountJson). `T` is the shape it holds. */
export class JsonBody<T = unknown> {
  declare readonly shape?: T;
  constructor(readonly bytes: Buffer) {}

  static of<T>(value: T): JsonBody<T> {
    return new JsonBody<T>(Buffer.from(JSON.stringify(value)));
  }
}

/**
 * Serialized response bodies by key, each served only while the store version it was built
 * under still holds (Store.version), and before the instant its content would change by
 * itself (`until`, ms), if it has one: exact, never a guessed lifetime. The least recently
 * used entries go first past `max`.
 */
export function jsonBodyCache<T>(max = 256) {
  const entries = new LRUCache<string, { version: string; until: number; body: JsonBody<T> }>({
    max,
  });
  return {
    get(key: string, version: string, now: Date): JsonBody<T> | undefined {
      const entry = entries.get(key);
      return entry?.version === version && now.getTime() < entry.until ? entry.body : undefined;
    },
    /** Serializes `value` and keeps it under `key` for `version`, until `until` (ms) if given. */
    set(key: string, version: string, value: T, until = Number.POSITIVE_INFINITY): JsonBody<T> {
      const body = JsonBody.of(value);
      entries.set(key, { version, until, body });
      return body;
    },
  };
}
