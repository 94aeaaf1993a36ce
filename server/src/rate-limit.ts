import type { Redis } from 'ioredis';
import type Pg from 'pg';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import { faultError, faultOf } from './faults';
import { libraryClient } from './store/pg-prepared';

/** Where a hit left its counter: points counted in the current window, ms until it ends. */
export interface RateLimitOutcome {
  consumedPoints: number;
  msBeforeNext: number;
}

/**
 * What a counted hit means for the caller, for the HTTP layer to say (RateLimit-* headers, and a
 * 429 with Retry-After when `over`).
 */
export interface RateLimitVerdict {
  limit: number;
  remaining: number;
  /** Seconds until the counter's window ends. */
  resetSeconds: number;
  over: boolean;
  /** Seconds to wait before the next hit can pass (at least 1); meaningful when `over`. */
  retryAfterSeconds: number;
}

export interface Limiter {
  readonly limit: number;
  /** Where the counters live. */
  readonly backend: LimiterBackend;
  /** Every backend keeps the counter of `key` under `keyPrefix + key`, in windows of `windowMs`. */
  readonly keyPrefix: string;
  readonly windowMs: number;
  /** Counts one hit for `key`; throws 503 ServiceUnavailable when the counters can't be reached. */
  consume(key: string): Promise<RateLimitOutcome>;
  /**
   * Counts `count` hits for `key` in one call to the counters, and returns each hit's outcome in
   * order, as if they had come one by one: the same counts and refusals, one round trip.
   */
  consumeEach(key: string, count: number): Promise<RateLimitOutcome[]>;
  /** What a counted hit means: the figures to report, and whether it is past the limit. */
  verdict(outcome: RateLimitOutcome): RateLimitVerdict;
  /** `consume`, then `verdict`. */
  hit(key: string): Promise<RateLimitVerdict>;
  /** Counts one hit on each key; the verdict follows the tightest counter. */
  hitEach(keys: readonly string[]): Promise<RateLimitVerdict>;
}

/** The counter a caller must wait for: the longest wait past the limit, else the fullest. */
function tightest(outcomes: RateLimitOutcome[], limit: number): RateLimitOutcome {
  const over = outcomes.filter((o) => o.consumedPoints > limit);
  const pick = (better: (a: RateLimitOutcome, b: RateLimitOutcome) => boolean) =>
    (over.length > 0 ? over : outcomes).reduce((a, b) => (better(b, a) ? b : a));
  return over.length > 0
    ? pick((a, b) => a.msBeforeNext > b.msBeforeNext)
    : pick((a, b) => a.consumedPoints > b.consumedPoints);
}

/** Fail closed: whatever went wrong counting a hit, the request is refused 503 (no pass uncounted). */
export function limiterFault(backend: LimiterBackend, err: unknown) {
  const dependency = backend.kind === 'redis' ? 'redis' : 'store';
  const kind = faultOf(err)?.kind ?? 'unavailable';
  return faultError({ dependency, kind }, err, 'rate_limit_unavailable');
}

export type LimiterBackend =
  | { kind: 'memory' }
  | { kind: 'redis'; client: Redis }
  | { kind: 'postgres'; pool: Pg.Pool };

/**
 * A per-minute limiter: in memory for one process, in Redis or PostgreSQL when several
 * instances share the counters (rate-limiter-flexible does the counting).
 */
export function createLimiter(options: {
  name: string;
  perMinute: number;
  backend: LimiterBackend;
  /**
   * Redis only: while Redis can't count, count in this process instead of refusing (503), and
   * tell `onLocal` each time. Undefined: fail closed.
   */
  localWhenDown?: { onLocal(err: unknown): void };
}): Limiter {
  const { name, perMinute, backend, localWhenDown } = options;
  if (!Number.isInteger(perMinute) || perMinute <= 0)
    throw new Error('perMinute must be a positive integer');
  const common = { points: perMinute, duration: 60, keyPrefix: `bk:${name}` };
  let limiter: RateLimiterAbstract;
  if (backend.kind === 'redis') {
    limiter = new RateLimiterRedis({
      ...common,
      storeClient: backend.client,
      rejectIfRedisNotReady: true,
    });
  } else if (backend.kind === 'postgres') {
    limiter = new RateLimiterPostgres({
      ...common,
      storeClient: libraryClient(backend.pool),
      storeType: 'pool',
      tableName: 'rate_limits',
      tableCreated: true,
    });
  } else {
    limiter = new RateLimiterMemory(common);
  }

  // The per-instance counter while Redis is down (see localWhenDown).
  const local =
    backend.kind === 'redis' && localWhenDown ? new RateLimiterMemory(common) : undefined;
  const countLocally = async (key: string, points: number, err: unknown) => {
    localWhenDown?.onLocal(err);
    try {
      return await (local as RateLimiterMemory).consume(key, points);
    } catch (over) {
      if (over instanceof RateLimiterRes) return over;
      throw over;
    }
  };
  // `points` hits at once: every backend adds them all, past the limit too, and answers with
  // the counter after them.
  const consumePoints = async (key: string, points: number): Promise<RateLimitOutcome> => {
    try {
      return await limiter.consume(key, points);
    } catch (err) {
      // Past the limit rate-limiter-flexible rejects with the counter itself.
      if (err instanceof RateLimiterRes) return err;
      if (local) return countLocally(key, points, err);
      throw limiterFault(backend, err);
    }
  };

  const self: Limiter = {
    limit: perMinute,
    backend,
    // rate-limiter-flexible's key layout; a store query that counts a hit itself follows it.
    keyPrefix: `${common.keyPrefix}:`,
    windowMs: common.duration * 1000,
    async consume(key) {
      const { consumedPoints, msBeforeNext } = await consumePoints(key, 1);
      return { consumedPoints, msBeforeNext };
    },
    async consumeEach(key, count) {
      const { consumedPoints, msBeforeNext } = await consumePoints(key, count);
      // The i-th hit saw the counter as it stood after the hits before it and its own.
      return Array.from({ length: count }, (_, i) => ({
        consumedPoints: consumedPoints - count + i + 1,
        msBeforeNext,
      }));
    },
    verdict({ consumedPoints, msBeforeNext }) {
      const resetSeconds = Math.ceil(msBeforeNext / 1000);
      return {
        limit: perMinute,
        remaining: Math.max(0, perMinute - consumedPoints),
        resetSeconds,
        over: consumedPoints > perMinute,
        retryAfterSeconds: Math.max(1, resetSeconds),
      };
    },
    async hit(key) {
      return self.verdict(await self.consume(key));
    },
    async hitEach(keys) {
      const outcomes = await Promise.all(keys.map((key) => self.consume(key)));
      return self.verdict(tightest(outcomes, perMinute));
    },
  };
  return self;
}
