// PostgreSQL with the SSO counters and the used jtis in Redis (`REDIS_URL`): the organization
// read, provisioning and everything else stay in PostgreSQL (postgres.ts, sqlite.ts); the hit
// and the claim are one Lua script, gathered per counter as PostgreSQL's statement is.
import type { Redis } from 'ioredis';
import type Pg from 'pg';
import { type Limiter, limiterFault } from '../../rate-limit';
import type { Db } from '../db';
import { gathered, perOwner } from '../gathered';
import { postgresSsoExchange } from './postgres';
import {
  type CountedClaim,
  type MembersAdded,
  type SsoExchangeStore,
  ssoCounterKey,
} from './types';

// rate-limiter-flexible's counting (RateLimiterRedis: a window of ARGV[1] s opened by the first
// hit) once per entry in arrival order, each followed by its jti's `SET NX` with its remaining
// lifetime only when that hit is within the limit: a batch in one atomic round trip, counted as
// one by one. KEYS: the counter, then one jti key per entry ('' for an entry without a jti; a
// jti twice finds its key set: a replay). ARGV: the window in seconds, the limit, then each
// entry's lifetime in ms. Answers consumed points, ms left in the window and 1 when claimed,
// per entry.
const HITS_AND_CLAIMS_LUA = `
redis.call('set', KEYS[1], 0, 'EX', ARGV[1], 'NX')
local out = {}
for i = 2, #KEYS do
  local consumed = redis.call('incrby', KEYS[1], 1)
  local ttl = redis.call('pttl', KEYS[1])
  if ttl == -1 then
    redis.call('expire', KEYS[1], ARGV[1])
    ttl = 1000 * ARGV[1]
  end
  local fresh = 0
  if consumed <= tonumber(ARGV[2]) and KEYS[i] ~= '' then
    if redis.call('set', KEYS[i], '1', 'PX', ARGV[i + 1], 'NX') then fresh = 1 end
  end
  out[#out + 1] = consumed
  out[#out + 1] = ttl
  out[#out + 1] = fresh
end
return out`;

type WithHitsAndClaims = Redis & {
  bkHitsAndClaims(numberOfKeys: number, ...keysThenArgs: (string | number)[]): Promise<number[]>;
};

/** The Redis key of a used jti. */
export const redisJtiKey = (orgId: string, jti: string) => `bk:jti:${orgId}:${jti}`;

interface PendingClaim {
  jtiKey: string;
  ttlMs: number;
  resolve(counted: CountedClaim): void;
  reject(err: unknown): void;
}

async function sendScript(
  redis: Redis,
  limiter: Limiter,
  counterKey: string,
  batch: PendingClaim[],
) {
  try {
    const client = redis as WithHitsAndClaims;
    if (typeof client.bkHitsAndClaims !== 'function') {
      redis.defineCommand('bkHitsAndClaims', { lua: HITS_AND_CLAIMS_LUA });
    }
    const out = await client.bkHitsAndClaims(
      batch.length + 1,
      counterKey,
      ...batch.map((c) => c.jtiKey),
      Math.ceil(limiter.windowMs / 1000),
      limiter.limit,
      ...batch.map((c) => c.ttlMs),
    );
    for (const [i, c] of batch.entries()) {
      const [consumed, ttl, claimed] = out.slice(i * 3, i * 3 + 3) as [number, number, number];
      const within = consumed <= limiter.limit;
      c.resolve({
        outcome: { consumedPoints: consumed, msBeforeNext: ttl },
        fresh: c.jtiKey === '' ? within : claimed === 1,
      });
    }
  } catch (err) {
    const fault = limiterFault(limiter.backend, err);
    for (const c of batch) c.reject(fault);
  }
}

const scriptsOn = perOwner((redis: Redis) =>
  perOwner((limiter: Limiter) =>
    gathered((counterKey: string, batch: PendingClaim[]) =>
      sendScript(redis, limiter, counterKey, batch),
    ),
  ),
);

/** PostgreSQL's SSO exchange with the counters (`limiter` must count in `redis`) and jtis in Redis. */
export function postgresRedisSsoExchange(
  db: Db,
  pool: Pg.Pool,
  redis: Redis,
  limiter: Limiter,
  now: () => Date,
  onAdded: MembersAdded,
): SsoExchangeStore {
  const postgres = postgresSsoExchange(db, pool, limiter, now, onAdded);
  const ttlOf = (expiresAt: Date) => Math.max(1000, expiresAt.getTime() - now().getTime());
  return {
    read: postgres.read,
    provision: postgres.provision,
    countAndClaim(orgId, jti) {
      const counterKey = limiter.keyPrefix + ssoCounterKey(orgId);
      return new Promise((resolve, reject) =>
        scriptsOn(redis)(limiter)(counterKey, {
          jtiKey: jti ? redisJtiKey(orgId, jti.jti) : '',
          ttlMs: jti ? ttlOf(jti.expiresAt) : 0,
          resolve,
          reject,
        }),
      );
    },
    async release(orgId, jti) {
      await redis.del(redisJtiKey(orgId, jti));
    },
  };
}
