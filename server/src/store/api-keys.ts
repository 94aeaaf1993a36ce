import { sql } from 'kysely';
import type Pg from 'pg';
import type { Limiter, RateLimitOutcome } from '../rate-limit';
import { type Db, LIST_VERSION_TABLES, type Store, storeVersionSql } from './db';
import { gathered, perOwner } from './gathered';
import { statementNameOn } from './pg-prepared';
import { precompiled } from './precompiled';
import type { ApiKeysTable } from './schema';

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
const BY_HASH = {
  sqlite: precompiled(keyState),
  // Every authenticated request reads the key; the version rides along for free.
  postgres: precompiled((db, keyHash: string) =>
    keyState(db, keyHash).select(
      sql<string>`(${sql.raw(storeVersionSql(LIST_VERSION_TABLES))})`.as('storeVersion'),
    ),
  ),
};

// One statement: the key, the store version, and, for a key that is neither revoked nor
// expired, $6 hits on its rate-limit row with rate-limiter-flexible's arithmetic (a new
// window of $6 points once the last one has expired), so both count on the same rows.
// The statement itself is a PL/pgSQL function (migration 0010, which holds its SQL), so the
// server keeps its plan.
const BY_HASH_COUNTING_HIT = 'select * from bk_api_key_counting_hit($1, $2, $3, $4, $5, $6)';

type CountedRow = ApiKeyState & {
  storeVersion: string;
  hitPoints: number | null;
  hitExpire: string | null;
};

interface PendingLookup {
  keyHash: string;
  counter: { keyPrefix: string; windowMs: number };
  now: Date;
  resolve(row: CountedRow | undefined): void;
  reject(err: unknown): void;
}

// Per pool, the lookups of each key gathered while a statement for it is in flight (see below).
const lookupsOn = perOwner((pool: Pg.Pool) =>
  gathered((_key: string, batch: PendingLookup[]) => countBatch(pool, batch)),
);

/**
 * The key row for a digest and the store version, with one hit counted on the key's
 * rate-limit row (`counter.keyPrefix` + key id, windows of `counter.windowMs`) when the key is
 * usable: one round trip. `hitPoints` is null when no hit was counted.
 *
 * Group-counted, as the SSO exchange's hits are (sso-exchange/postgres.ts): every request with one key
 * updates the same counter row, whose lock a statement holds through its commit, so one at a
 * time could pass (here ~1.5 ms each: ~700 requests/s per key, whatever the pool). At most one
 * statement per key is in flight per process; the requests that arrive meanwhile go in the
 * next, which counts all their hits at once and gives each its own place in the count: the
 * same counts and refusals as one by one. Across processes the row lock orders the statements.
 */
export function findApiKeyCountingHit(
  pool: Pg.Pool,
  keyHash: string,
  counter: { keyPrefix: string; windowMs: number },
  now: Date,
): Promise<CountedRow | undefined> {
  const queue = lookupsOn(pool);
  // Batched by key and counter: one statement counts for one of each.
  return new Promise((resolve, reject) =>
    queue(`${counter.keyPrefix}\u0000${keyHash}`, { keyHash, counter, now, resolve, reject }),
  );
}

async function countBatch(pool: Pg.Pool, batch: PendingLookup[]) {
  const { keyHash, counter } = batch[0]!;
  try {
    // The clock of the latest arrival (each request still judges the key at its own).
    const at = batch.at(-1)!.now;
    const ms = at.getTime();
    const result = await pool.query({
      name: statementNameOn(pool, BY_HASH_COUNTING_HIT),
      text: BY_HASH_COUNTING_HIT,
      values: [
        keyHash,
        counter.keyPrefix,
        ms + counter.windowMs,
        at.toISOString(),
        ms,
        batch.length,
      ],
    });
    const row = result.rows[0] as CountedRow | undefined;
    for (const [i, c] of batch.entries()) {
      c.resolve(
        row && row.hitPoints !== null
          ? { ...row, hitPoints: row.hitPoints - batch.length + i + 1 }
          : row,
      );
    }
  } catch (err) {
    for (const c of batch) c.reject(err);
  }
}

export interface ApiKeyLookup {
  key: ApiKeyState;
  /** The version of LIST_VERSION_TABLES (Store.version), when it came in the same round trip. */
  storeVersion?: string;
  /** The hit this request counted on the key's rate limit; the caller enforces it. */
  rateLimit: RateLimitOutcome;
}

const usable = (key: ApiKeyState, now: Date) =>
  key.revokedAt === null && (key.expiresAt === null || Date.parse(key.expiresAt) > now.getTime());

/**
 * The API key for a digest, with one hit counted on its rate limit (`key:<id>`), or undefined
 * for an unknown, revoked or expired key (nothing counted). On PostgreSQL with the counters in
 * the store this is one round trip that also reads the store version; elsewhere the key is
 * read (a precompiled, usually cached, read) and the limiter counts.
 */
export async function lookUpApiKey(
  store: Store,
  keyHash: string,
  options: { limiter: Limiter; now: Date },
): Promise<ApiKeyLookup | undefined> {
  const { limiter, now } = options;
  const { backend } = limiter;
  if (store.pgPool && backend.kind === 'postgres' && backend.pool === store.pgPool) {
    const row = await findApiKeyCountingHit(store.pgPool, keyHash, limiter, now);
    if (!row || !usable(row, now)) return undefined;
    const { storeVersion, hitPoints, hitExpire, ...key } = row;
    const rateLimit =
      hitPoints === null
        ? await limiter.consume(`key:${key.id}`)
        : { consumedPoints: hitPoints, msBeforeNext: Math.max(0, Number(hitExpire) - Date.now()) };
    return { key, storeVersion, rateLimit };
  }
  const [row] = await BY_HASH[store.engine](store.db, keyHash);
  if (!row || !usable(row, now)) return undefined;
  const { storeVersion, ...key } = row as ApiKeyState & { storeVersion?: string };
  return { key, storeVersion, rateLimit: await limiter.consume(`key:${key.id}`) };
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
