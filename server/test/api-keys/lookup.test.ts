import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase, STORE_ENGINES } from '../../../test/support/bridge';
import { createLimiter, type Limiter } from '../../src/rate-limit';
import { insertApiKey, lookUpApiKey } from '../../src/store/api-keys';
import { openStore, type Store } from '../../src/store/db';
import { organizationListVersion } from '../../src/store/organizations';

const NOW = new Date();
const at = NOW.toISOString();

describe.each(STORE_ENGINES)('lookUpApiKey on %s', (engine) => {
  let store: Store;
  let dir: string;
  let drop: (() => Promise<void>) | undefined;
  let limiter: Limiter;
  let queries: string[];

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-lookup-'));
    const database = engine === 'sqlite' ? undefined : await createPgDatabase(engine);
    drop = database?.drop;
    store = openStore({ databaseUrl: database?.url, dataDir: dir });
    await store.migrate();
    const pool = store.pgPool;
    // Counters where the bridge keeps them by default: the store on PostgreSQL, memory on SQLite.
    limiter = createLimiter({
      name: 'lookup',
      perMinute: 2,
      backend: pool ? { kind: 'postgres', pool } : { kind: 'memory' },
    });
    if (pool) {
      queries = [];
      const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
      (pool as unknown as { query: typeof query }).query = (...args) => {
        queries.push(JSON.stringify(args[0]));
        return query(...args);
      };
    }
    await store.db
      .insertInto('users')
      .values({ id: 'usr_l', email: 'l@example.com', createdAt: at, isEmailVerified: 0 })
      .execute();
    const expired = new Date(NOW.getTime() - 1000).toISOString();
    for (const [id, expiresAt] of [
      ['key_live', null],
      ['key_revoked', null],
      ['key_expired', expired],
    ] as const) {
      const key = { id, userId: 'usr_l', name: null, hint: 'abcd', createdAt: at, expiresAt };
      await insertApiKey(store.db, { ...key, keyHash: `hash_${id}` });
    }
    await store.db
      .updateTable('apiKeys')
      .set({ revokedAt: at })
      .where('id', '=', 'key_revoked')
      .execute();
  });
  afterAll(async () => {
    await store.close();
    await drop?.();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('finds a usable key and counts one hit on its rate limit', async () => {
    const first = await lookUpApiKey(store, 'hash_key_live', { limiter, now: NOW });
    const second = await lookUpApiKey(store, 'hash_key_live', { limiter, now: NOW });
    expect(first?.key).toMatchObject({ id: 'key_live', userId: 'usr_l', revokedAt: null });
    expect(first?.rateLimit.consumedPoints).toBe(1);
    expect(second?.rateLimit.consumedPoints).toBe(2);
    expect(second?.rateLimit.msBeforeNext).toBeGreaterThan(0);
  });

  it('finds nothing for an unknown, revoked or expired key', async () => {
    for (const hash of ['hash_none', 'hash_key_revoked', 'hash_key_expired']) {
      expect(await lookUpApiKey(store, hash, { limiter, now: NOW })).toBeUndefined();
    }
  });

  it('counts no hit for a revoked or expired key', async () => {
    for (const id of ['key_revoked', 'key_expired']) {
      await lookUpApiKey(store, `hash_${id}`, { limiter, now: NOW });
      const counter = await limiter.consume(`key:${id}`);
      expect(counter.consumedPoints).toBe(1);
    }
  });

  it('counts the lookups of one key that arrive together once, each hit in its own place', async () => {
    const many = createLimiter({
      name: 'lookup-many',
      perMinute: 5,
      backend: store.pgPool ? { kind: 'postgres', pool: store.pgPool } : { kind: 'memory' },
    });
    if (store.pgPool) queries.length = 0;
    const found = await Promise.all(
      Array.from({ length: 7 }, () =>
        lookUpApiKey(store, 'hash_key_live', { limiter: many, now: NOW }),
      ),
    );
    expect(found.map((f) => f?.rateLimit.consumedPoints)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    // Past the limit of 5: the 6th and 7th are over, as one by one.
    expect(found.map((f) => many.verdict(f!.rateLimit).over)).toEqual([
      false,
      false,
      false,
      false,
      false,
      true,
      true,
    ]);
    // The first alone, the six that arrived while it ran together.
    if (store.pgPool) expect(queries).toHaveLength(2);
  });

  // PostgreSQL only: SQLite reads the key from its result cache and keeps no shared counter.
  if (engine !== 'sqlite') {
    it('reads key, hit and the organization list version in one round trip', async () => {
      const arrived = performance.now();
      queries.length = 0;
      await lookUpApiKey(store, 'hash_key_live', { limiter, now: NOW });
      expect(queries).toHaveLength(1);
      // A caller that arrived before the lookup was sent takes the version it read.
      const version = await organizationListVersion(store, arrived);
      expect(queries).toHaveLength(1);
      expect(version).toBe(await organizationListVersion(store));
      // One that arrived after it reads its own.
      queries.length = 0;
      await organizationListVersion(store, performance.now());
      expect(queries).toHaveLength(1);
    });

    it('never gives a caller a version read before it arrived', async () => {
      const before = await organizationListVersion(store);
      await lookUpApiKey(store, 'hash_key_live', { limiter, now: NOW });
      const arrived = performance.now();
      await store.db
        .insertInto('organizations')
        .values({
          id: 'org_after',
          name: 'After',
          slug: 'after',
          jwtSecretSealed: 'x',
          embedAllowedOrigins: '[]',
          fullEmbedEnabled: 0,
          onboardingStatus: 'STARTED',
          customAiContext: null,
          previousJwtSecretSealed: null,
          previousJwtSecretExpiresAt: null,
          createdAt: at,
          updatedAt: at,
        })
        .execute();
      expect(await organizationListVersion(store, arrived)).not.toBe(before);
    });
  }
});
