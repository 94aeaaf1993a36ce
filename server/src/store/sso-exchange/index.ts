import type { Limiter } from '../../rate-limit';
import type { Store } from '../db';
import { postgresSsoExchange } from './postgres';
import { postgresRedisSsoExchange } from './postgres-redis';
import { sqliteSsoExchange } from './sqlite';
import type { MembersAdded, SsoExchangeStore } from './types';

export type * from './types';

/**
 * The SSO exchange's store for where the SSO limiter keeps its counters: with them in the
 * store's PostgreSQL, or in Redis next to a PostgreSQL store, the hit and the jti claim are one
 * round trip (postgres.ts, postgres-redis.ts). Anywhere else (SQLite, whose limiter counts in
 * memory or Redis; or an operator's choice of counters away from the store), the limiter counts
 * and the jti is claimed in the store (sqlite.ts: plain Kysely, for either engine).
 */
export function openSsoExchange(
  store: Pick<Store, 'db' | 'pgPool'>,
  limiter: Limiter,
  now: () => Date,
  onAdded: MembersAdded,
): SsoExchangeStore {
  const { db, pgPool } = store;
  const { backend } = limiter;
  if (pgPool && backend.kind === 'postgres' && backend.pool === pgPool) {
    return postgresSsoExchange(db, pgPool, limiter, now, onAdded);
  }
  if (pgPool && backend.kind === 'redis') {
    return postgresRedisSsoExchange(db, pgPool, backend.client, limiter, now, onAdded);
  }
  return sqliteSsoExchange(db, limiter, now, onAdded);
}
