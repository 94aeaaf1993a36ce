import { sql } from 'kysely';
import type Pg from 'pg';
import { type Db, STORE_VERSION_SQL, type Store } from './db';
import { statementName } from './pg-prepared';
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
> & {
  /** PostgreSQL only: the store version, read in the same round trip (see Store.version). */
  storeVersion?: string;
};

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

/**
 * The key row for a digest, whatever its state; the caller checks revocation and expiry. On
 * every authenticated request, so it is precompiled (and on SQLite usually a hit of the exact
 * result cache).
 */
export async function findApiKeyByHash(
  store: Store,
  keyHash: string,
): Promise<ApiKeyState | undefined> {
  const [row] = await BY_HASH[store.engine](store.db, keyHash);
  return row;
}

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
 * PostgreSQL with the rate limits in the store: findApiKeyByHash and the rate-limit hit of a
 * usable key in one round trip instead of two. `hitPoints` is null when no hit was counted.
 */
export async function findApiKeyCountingHit(
  pool: Pg.Pool,
  keyHash: string,
  counter: { keyPrefix: string; windowMs: number },
  now: Date,
): Promise<(ApiKeyState & { hitPoints: number | null; hitExpire: string | null }) | undefined> {
  const at = now.getTime();
  const result = await pool.query({
    name: statementName(BY_HASH_COUNTING_HIT),
    text: BY_HASH_COUNTING_HIT,
    values: [keyHash, counter.keyPrefix, at + counter.windowMs, now.toISOString(), at],
  });
  return result.rows[0];
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
