import { sql } from 'kysely';
import type Pg from 'pg';
import type { Limiter, RateLimitOutcome } from '../rate-limit';
import { type Db, type Store, storeVersionSql } from './db';
import { gathered, perOwner } from './gathered';
import { ORGANIZATION_LIST_TABLES } from './organizations';
import { statementNameOn } from './pg-prepared';
import { precompiled } from './precompiled';
import type { ApiKeysTable } from './schema';
import { versionReads } from './version-reads';

export type NewApiKey = Omit<ApiKeysTable, 'lastUsedAt' | 'revokedAt'>;

export const insertApiKey = (db: Db, key: NewApiKey) =>
  db
    .insertInto('apiKeys')
    .values({ ...key, lastUsedAt: null, revokedAt: null })
    .execute();

export type ApiKeyState = Pick<
  ApiKeysTable,
  'id' | 'userId' | 'expiresAt' | 'revokedAt' | 'lastUsedAt'
>;

const keyState = (db: Db, keyHash: string) =>
  db
    .selectFrom('apiKeys')
    .select(['id', 'userId', 'expiresAt', 'revokedAt', 'lastUsedAt'])
    .where('keyHash', '=', keyHash);
// PostgreSQL: the organization list's store version rides along with the key (see
// version-reads.ts): most requests made with a key that read a version read that one.
const LIST_VERSION = storeVersionSql(ORGANIZATION_LIST_TABLES);
const BY_HASH = {
  sqlite: precompiled(keyState),
  postgres: precompiled((db, keyHash: string) =>
    keyState(db, keyHash).select(sql<string>`(${sql.raw(LIST_VERSION)})`.as('storeVersion')),
  ),
};

// One statement: the key, the store version, and, for a key that is neither revoked nor
// expired, $6 hits on its rate-limit row with rate-limiter-flexible's arithmetic (a new
// window of $6 points once the last one has expired), so both count on the same rows.
// The key and the hit are a PL/pgSQL function (migrations 0010 and 0020, which hold its SQL),
// so the server keeps its plan; the version is read beside it.
const BY_HASH_COUNTING_HIT = `select f.id, f."userId", f."expiresAt", f."revokedAt", f."lastUsedAt",
  (${LIST_VERSION}) as "storeVersion", f."hitPoints", f."hitExpire"
  from bk_api_key_counting_hit($1, $2, $3, $4, $5, $6) f`;

type CountedRow = ApiKeyState & {
  storeVersion: string;
  hitPoints: number | null;
  hitExpire: string | null;
};

/**
 * The key row for a digest and the store version, with `count` hits counted on the key's
 * rate-limit row (`counter.keyPrefix` + key id, windows of `counter.windowMs`) when the key is
 * usable at `now`: one round trip. One row per hit, in order, each with the count as it stood
 * after that hit (`hitPoints` null when none was counted); none for an unknown key. Every
 * request with one key updates the same counter row, whose lock a statement holds through its
 * commit, so lookUpApiKey sends the hits of the requests that arrive together in one statement.
 */
export async function findApiKeyCountingHit(
  pool: Pg.Pool,
  keyHash: string,
  counter: { keyPrefix: string; windowMs: number },
  count: number,
  now: Date,
): Promise<CountedRow[]> {
  const ms = now.getTime();
  const sentAt = performance.now();
  const result = await pool.query({
    name: statementNameOn(pool, BY_HASH_COUNTING_HIT),
    text: BY_HASH_COUNTING_HIT,
    values: [keyHash, counter.keyPrefix, ms + counter.windowMs, now.toISOString(), ms, count],
  });
  const row = result.rows[0] as CountedRow | undefined;
  if (!row) return [];
  versionReads(pool).note(LIST_VERSION, sentAt, row.storeVersion);
  return Array.from({ length: count }, (_, i) =>
    row.hitPoints === null ? row : { ...row, hitPoints: row.hitPoints - count + i + 1 },
  );
}

export interface ApiKeyLookup {
  key: ApiKeyState;
  /** The hit this request counted on the key's rate limit; the caller enforces it. */
  rateLimit: RateLimitOutcome;
}

interface PendingLookup {
  keyHash: string;
  limiter: Limiter;
  now: Date;
  resolve(found: ApiKeyLookup | undefined): void;
  reject(err: unknown): void;
}

const usable = (key: ApiKeyState, now: Date) =>
  key.revokedAt === null && (key.expiresAt === null || Date.parse(key.expiresAt) > now.getTime());

// Per store, the lookups of each key (and limiter) gathered while one batch for it is in flight.
const lookupsOn = perOwner((store: Store) =>
  gathered((_key: string, batch: PendingLookup[]) => lookUpBatch(store, batch)),
);

/**
 * The API key for a digest, with one hit counted on its rate limit (`key:<id>`), or undefined
 * for an unknown, revoked or expired key (nothing counted).
 *
 * Gathered per key: every request with one key reads the same row and counts on the same
 * counter, so at most one batch per key is in flight per process, and the requests that arrive
 * meanwhile go in the next: one read and one count for all of them, each hit given its own
 * place in the count (the same counts and refusals as one by one). A batch starts after each
 * of its requests arrived, so none is answered from a read older than itself. On PostgreSQL
 * with the counters in the store, the read, the store version and the count are one statement
 * (findApiKeyCountingHit); elsewhere the key is read (precompiled, with the store version on
 * PostgreSQL) and the limiter counts the batch's hits in one call.
 */
export function lookUpApiKey(
  store: Store,
  keyHash: string,
  options: { limiter: Limiter; now: Date },
): Promise<ApiKeyLookup | undefined> {
  const { limiter, now } = options;
  return new Promise((resolve, reject) =>
    lookupsOn(store)(`${limiter.keyPrefix}\u0000${keyHash}`, {
      keyHash,
      limiter,
      now,
      resolve,
      reject,
    }),
  );
}

async function lookUpBatch(store: Store, batch: PendingLookup[]) {
  try {
    const { keyHash, limiter } = batch[0]!;
    const { backend } = limiter;
    if (store.pgPool && backend.kind === 'postgres' && backend.pool === store.pgPool) {
      await countInStore(store.pgPool, batch);
      return;
    }
    const sentAt = performance.now();
    const [row] = await BY_HASH[store.engine](store.db, keyHash);
    if (!row) {
      for (const c of batch) c.resolve(undefined);
      return;
    }
    const { storeVersion, ...key } = row as ApiKeyState & { storeVersion?: string };
    if (store.pgPool && storeVersion !== undefined) {
      versionReads(store.pgPool).note(LIST_VERSION, sentAt, storeVersion);
    }
    const counted = batch.filter((c) => usable(key, c.now));
    for (const c of batch) if (!usable(key, c.now)) c.resolve(undefined);
    if (counted.length === 0) return;
    const outcomes = await limiter.consumeEach(`key:${key.id}`, counted.length);
    for (const [i, c] of counted.entries()) {
      c.resolve({ key, rateLimit: outcomes[i]! });
    }
  } catch (err) {
    // Settling twice is harmless: an item already answered keeps its answer.
    for (const c of batch) c.reject(err);
  }
}

/** lookUpBatch with the counters in the store: one statement (findApiKeyCountingHit). */
async function countInStore(pool: Pg.Pool, batch: PendingLookup[]) {
  const { keyHash, limiter } = batch[0]!;
  // The clock of the latest arrival decides whether hits are counted; each request still
  // judges the key at its own.
  const rows = await findApiKeyCountingHit(pool, keyHash, limiter, batch.length, batch.at(-1)!.now);
  for (const [i, c] of batch.entries()) {
    const row = rows[i];
    if (!row || !usable(row, c.now)) {
      c.resolve(undefined);
      continue;
    }
    const { storeVersion: _, hitPoints, hitExpire, ...key } = row;
    const rateLimit =
      hitPoints === null
        ? await limiter.consume(`key:${key.id}`)
        : { consumedPoints: hitPoints, msBeforeNext: Math.max(0, Number(hitExpire) - Date.now()) };
    c.resolve({ key, rateLimit });
  }
}

export const touchApiKey = (db: Db, id: string, at: string) =>
  db.updateTable('apiKeys').set({ lastUsedAt: at }).where('id', '=', id).execute();

export const listApiKeys = (db: Db, userId: string) =>
  db
    .selectFrom('apiKeys')
    .select(['id', 'name', 'hint', 'createdAt', 'lastUsedAt', 'expiresAt', 'revokedAt'])
    .where('userId', '=', userId)
    .orderBy('id')
    .execute();

export async function revokeApiKey(db: Db, id: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('apiKeys')
    .set({ revokedAt: at })
    .where('id', '=', id)
    .where('revokedAt', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
