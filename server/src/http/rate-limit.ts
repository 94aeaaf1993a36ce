import type { Response } from 'express';
import type { Redis } from 'ioredis';
import type Pg from 'pg';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import { ApiError } from '../api-error';

export interface Limiter {
  readonly limit: number;
  /** Where the counters live. */
  readonly backend: LimiterBackend['kind'];
  /** Counts one hit for `key`; throws 429 TooManyRequests past the limit. Sets RateLimit-* headers. */
  hit(key: string, res: Response): Promise<void>;
  /**
   * For a PostgreSQL query that counts a hit itself, in the same round trip as other work: the
   * row of `key` is `rate_limits.key = keyPrefix + key`, a window lasts `windowMs`. `counted`
   * then applies the row the query returned.
   */
  readonly pgCounter: { keyPrefix: string; windowMs: number };
  /** Applies a hit counted by such a query: `points` in the window ending at `expire` (ms). */
  counted(points: number, expire: number, res: Response): void;
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
}): Limiter {
  const { name, perMinute, backend } = options;
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
      storeClient: backend.pool,
      storeType: 'pool',
      tableName: 'rate_limits',
      tableCreated: true,
    });
  } else {
    limiter = new RateLimiterMemory(common);
  }

  const setHeaders = (res: Response, r: { remainingPoints: number; msBeforeNext: number }) => {
    res.setHeader('RateLimit-Limit', String(perMinute));
    res.setHeader('RateLimit-Remaining', String(Math.max(0, r.remainingPoints)));
    res.setHeader('RateLimit-Reset', String(Math.ceil(r.msBeforeNext / 1000)));
  };
  const refuse = (res: Response, r: { remainingPoints: number; msBeforeNext: number }) => {
    setHeaders(res, r);
    const retryAfter = String(Math.max(1, Math.ceil(r.msBeforeNext / 1000)));
    return new ApiError('TooManyRequests', `Rate limit exceeded; retry in ${retryAfter} s`, {
      headers: { 'Retry-After': retryAfter },
    });
  };

  return {
    limit: perMinute,
    backend: backend.kind,
    async hit(key, res) {
      try {
        setHeaders(res, await limiter.consume(key));
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) {
          throw new ApiError('ServiceUnavailable', 'Rate limit store unavailable', {
            cause: err,
            headers: { 'Retry-After': '2' },
          });
        }
        throw refuse(res, err);
      }
    },
    // rate-limiter-flexible's row key; the query must do its arithmetic (see api-keys.ts).
    pgCounter: { keyPrefix: `${common.keyPrefix}:`, windowMs: common.duration * 1000 },
    counted(points, expire, res) {
      const r = {
        remainingPoints: perMinute - points,
        msBeforeNext: Math.max(0, expire - Date.now()),
      };
      if (points > perMinute) throw refuse(res, r);
      setHeaders(res, r);
    },
  };
}
