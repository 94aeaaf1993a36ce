import { sql } from 'kysely';
import type Pg from 'pg';
import type { Limiter, RateLimitOutcome } from '../http/rate-limit';
import { type Db, STORE_VERSION_SQL, type Store } from './db';
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
    keyState(db, keyHash).select(sql<string>`(${sql.raw(STORE_VERSION_SQL)})`.as('storeVersion')),
  ),
};

const KEY_COLUMNS =
  'id, user_id as "userId", expires_at as "expiresAt", revoked_at as "revokedAt", last_used_at as "lastUsedAt"';

// One statement: the key, the store version, and, for a key that is neither revoked nor
// expired, one hit on its rate-limit row with rate-limiter-flexible's arithmetic (a new
// window of 1 point once the last one has expired), so both count on the same rows.
const BY_HASH_COUNTING_HIT = `
with k as (
  select ${KEY_COLUMNS} from api_keys where key_hash = $1
), hit as (
  insert into rate_limits (key, points, expire)
  select $2 || k.id, 1, $3::bigint from k
  where k."revokedAt" is null and (k."expiresAt" is null or k."expiresAt" > $4)
  on conflict (key) do update set
    points = case when rate_limits.expire <= $5::bigint then 1 else rate_limits.points + 1 end,
    expire = case when rate_limits.expire <= $5::bigint then $3::bigint else rate_limits.expire end
  returning points, expire
)
select k.*, (${STORE_VERSION_SQL}) as "storeVersion",
  hit.points as "hitPoints", hit.expire::text as "hitExpire"
from k left join hit on true`;

/**
 * The key row for a digest and the store version, with one hit counted on the key's
 * rate-limit row (`counter.keyPrefix` + key id, windows of `counter.windowMs`) when the key is
 * usable: one round trip. `hitPoints` is null when no hit was counted.
 */
export async function findApiKeyCountingHit(
  pool: Pg.Pool,
  keyHash: string,
  counter: { keyPrefix: string; windowMs: number },
  now: Date,
): Promise<
  | (ApiKeyState & { storeVersion: string; hitPoints: number | null; hitExpire: string | null })
  | undefined
> {
  const at = now.getTime();
  const result = await pool.query({
    name: statementNameOn(pool, BY_HASH_COUNTING_HIT),
    text: BY_HASH_COUNTING_HIT,
    values: [keyHash, counter.keyPrefix, at + counter.windowMs, now.toISOString(), at],
  });
  return result.rows[0];
}

export interface ApiKeyLookup {
  key: ApiKeyState;
  /** The store version (Store.version), when it came in the same round trip. */
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
