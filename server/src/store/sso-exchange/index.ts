import type { Redis } from 'ioredis';
import type { Limiter } from '../../rate-limit';
import type { Store } from '../db';
import { postgresSsoExchange } from './postgres';
import { withRedisClaims } from './postgres-redis';
import { sqliteSsoExchange } from './sqlite';
import type { MembersAdded, SsoExchangeStore } from './types';

export type * from './types';

/**
 * The SSO exchange's store. The used jtis live in Redis when the bridge has one (`REDIS_URL`),
 * else in the store. With the SSO limiter's counters next to them (the store's PostgreSQL, or
 * that Redis) the hit and the claim are one round trip (postgres.ts, postgres-redis.ts);
 * otherwise the limiter counts, then the jti is claimed. sqlite.ts is plain Kysely for either
 * engine: SQLite, and a PostgreSQL store whose limiter counts elsewhere without Redis.
 */
export function openSsoExchange(
  store: Pick<Store, 'db' | 'pgPool'>,
  limiter: Limiter,
  now: () => Date,
  onAdded: MembersAdded,
  redis?: Redis,
): SsoExchangeStore {
  const { db, pgPool } = store;
  const { backend } = limiter;
  // The PostgreSQL module counts in its own statement: only where the limiter counts there.
  const countsInPg = backend.kind === 'postgres' && backend.pool === pgPool;
  const base =
    pgPool && (redis || countsInPg)
      ? postgresSsoExchange(db, pgPool, limiter, now, onAdded)
      : sqliteSsoExchange(db, limiter, now, onAdded);
  return redis ? withRedisClaims(base, redis, limiter, now) : base;
}
