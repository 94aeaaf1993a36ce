import { createRequire } from 'node:module';

// Heavy optional modules (pg, ssh2, ioredis, tldts) load on first use, so a bridge on SQLite
// that never verifies over SSH or uses Redis doesn't carry them in memory.
const load = createRequire(import.meta.url);

/** `lazy<typeof Pg>('pg')`: a function that requires the module on its first call, then returns it. */
export function lazy<T>(name: string): () => T {
  let mod: T | undefined;
  return () => {
    mod ??= load(name) as T;
    return mod;
  };
}
