// The used jtis in Redis (`REDIS_URL`), next to the store's own module for everything else
// (postgres.ts on PostgreSQL, sqlite.ts on SQLite). With the SSO counters in the same Redis
// the hit and the claim are one Lua script, gathered per counter as PostgreSQL's statement is;
// with them elsewhere (`BRIDGE_RATE_LIMIT_STORE=store`) the limiter counts, then the same
// script claims without counting.
import type { Redis } from 'ioredis';
import { type Limiter, limiterFault } from '../../rate-limit';
import { gathered } from '../gathered';
import { type CountedClaim, type SsoExchangeStore, ssoCounterKey } from './types';

// rate-limiter-flexible's counting (RateLimiterRedis: a window of ARGV[1] s opened by the first
// hit) once per entry in arrival order, each followed by its jti's `SET NX` with its remaining
// lifetime only when that hit is within the limit: a batch in one atomic round trip, counted as
// one by one. With ARGV[3] '0', no counting: each jti is claimed. KEYS: the counter, then one
// jti key per entry ('' for an entry without a jti; a jti twice finds its key set: a replay).
// ARGV: the window in seconds, the limit, whether to count, then each entry's lifetime in ms.
// Answers consumed points, ms left in the window and 1 when claimed, per entry.
const HITS_AND_CLAIMS_LUA = `
local count = ARGV[3] == '1'
if count then redis.call('set', KEYS[1], 0, 'EX', ARGV[1], 'NX') end
local out = {}
for i = 2, #KEYS do
  local consumed, ttl = 0, 0
  if count then
    consumed = redis.call('incrby', KEYS[1], 1)
    ttl = redis.call('pttl', KEYS[1])
    if ttl == -1 then
      redis.call('expire', KEYS[1], ARGV[1])
      ttl = 1000 * ARGV[1]
    end
  end
  local fresh = 0
  if consumed <= tonumber(ARGV[2]) and KEYS[i] ~= '' then
    if redis.call('set', KEYS[i], '1', 'PX', ARGV[i + 2], 'NX') then fresh = 1 end
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
  resolve(counted: { consumed: number; ttl: number; claimed: boolean }): void;
  reject(err: unknown): void;
}

async function sendScript(
  redis: Redis,
  limiter: Limiter,
  count: boolean,
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
      count ? '1' : '0',
      ...batch.map((c) => c.ttlMs),
    );
    for (const [i, c] of batch.entries()) {
      const [consumed, ttl, claimed] = out.slice(i * 3, i * 3 + 3) as [number, number, number];
      c.resolve({ consumed, ttl, claimed: claimed === 1 });
    }
  } catch (err) {
    for (const c of batch) c.reject(err);
  }
}

/** `base` with its jtis in `redis` (and its SSO counters too when `limiter` counts there). */
export function withRedisClaims(
  base: SsoExchangeStore,
  redis: Redis,
  limiter: Limiter,
  now: () => Date,
): SsoExchangeStore {
  const countsHere = limiter.backend.kind === 'redis' && limiter.backend.client === redis;
  const scripts = {
    counting: gathered((key: string, batch: PendingClaim[]) =>
      sendScript(redis, limiter, true, key, batch),
    ),
    claiming: gathered((key: string, batch: PendingClaim[]) =>
      sendScript(redis, limiter, false, key, batch),
    ),
  };
  const ttlOf = (expiresAt: Date) => Math.max(1000, expiresAt.getTime() - now().getTime());
  const keyOf = (orgId: string) => limiter.keyPrefix + ssoCounterKey(orgId);
  const run = (
    queue: (key: string, item: PendingClaim) => void,
    orgId: string,
    jtiKey: string,
    ttlMs: number,
  ) =>
    new Promise<{ consumed: number; ttl: number; claimed: boolean }>((resolve, reject) =>
      queue(keyOf(orgId), { jtiKey, ttlMs, resolve, reject }),
    );
  return {
    read: base.read,
    provision: base.provision,
    async countAndClaim(orgId, jti): Promise<CountedClaim> {
      const jtiKey = jti ? redisJtiKey(orgId, jti.jti) : '';
      const ttlMs = jti ? ttlOf(jti.expiresAt) : 0;
      if (countsHere) {
        let counted: { consumed: number; ttl: number; claimed: boolean };
        try {
          counted = await run(scripts.counting, orgId, jtiKey, ttlMs);
        } catch (err) {
          // The limiter's own round trip: its failure is the limiter's (503, fail closed).
          throw limiterFault(limiter.backend, err);
        }
        const outcome = { consumedPoints: counted.consumed, msBeforeNext: counted.ttl };
        const within = counted.consumed <= limiter.limit;
        return { outcome, fresh: jti ? counted.claimed : within };
      }
      const outcome = await limiter.consume(ssoCounterKey(orgId));
      if (outcome.consumedPoints > limiter.limit) return { outcome, fresh: false };
      if (!jti) return { outcome, fresh: true };
      return { outcome, fresh: (await run(scripts.claiming, orgId, jtiKey, ttlMs)).claimed };
    },
    async release(orgId, jti) {
      await redis.del(redisJtiKey(orgId, jti));
    },
  };
}
