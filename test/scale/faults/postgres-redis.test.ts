import { createSsoToken } from '@bridgekit/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BridgeData,
  createApiKey,
  newBridgeData,
  removeBridgeData,
} from '../../support/bridge-data';
import { type BridgeProcess, startBridgeProcess } from '../../support/bridge-process';
import { type PgServer, startPgServer } from '../../support/pg-server';
import { type RedisServer, startRedisServer } from '../../support/redis-server';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy';
import { newTarget, type Target } from './load';
import {
  type CaseResult,
  describeResult,
  expectBrokenAs,
  expectOnlySuccessOr503,
  healthz,
  runCase,
  warmUp,
} from './matrix';

// Shorter bounds than the defaults (docs/configuration.md) so each case stays short, yet long enough that a
// connection to a healthy server opens in time on a busy machine. Redis commands get as long as
// PostgreSQL's statements: when PostgreSQL comes back, the requests it held all go on to Redis
// at once, and on a machine with no core to spare the bridge can read their answers more than
// a second late (the 1 s default then answers `redis_unavailable` for a healthy Redis).
const TIMEOUTS = {
  BRIDGE_PG_CONNECT_TIMEOUT_MS: '2500',
  BRIDGE_PG_STATEMENT_TIMEOUT_MS: '2500',
  BRIDGE_REDIS_CONNECT_TIMEOUT_MS: '1000',
  BRIDGE_REDIS_COMMAND_TIMEOUT_MS: '2500',
  BRIDGE_HEALTHZ_TIMEOUT_MS: '1000',
};
// The slowest a 503 may take while a dependency hangs: acquire + statement, plus a margin.
const SLOWEST_MS = 2500 + 2500 + 1500;
// /healthz answers within its deadline, plus a margin for a busy machine.
const HEALTHZ_WITHIN_MS = 1000 + 1000;
const PER_SECOND = 30;
const FAULT_MS = 6000;
// Memory a hang may add while requests keep coming: no queue grows with its length.
const RSS_GROWTH_MB = 40;

const HOST_ORIGIN = 'https://host.example';

/** The full-embed sign-in a browser makes in the host's iframe: its status, type, Retry-After. */
async function browserSignIn(bridge: BridgeProcess, target: Target) {
  const jwt = await createSsoToken({
    secret: target.jwtSecret,
    orgId: target.orgId,
    user: { email: `b-${Date.now()}@example.com` },
  });
  const res = await fetch(`${bridge.url}/api/sso/jwt?jwt=${jwt}`, {
    headers: { accept: 'text/html', origin: HOST_ORIGIN },
    redirect: 'manual',
  });
  await res.text();
  return {
    status: res.status,
    type: res.headers.get('content-type')?.split(';')[0],
    retryAfter: res.headers.get('retry-after'),
  };
}

const STORE_CODES = ['store_unavailable', 'rate_limit_unavailable'];

/**
 * The bridge on PostgreSQL and Redis, each reached through a TCP proxy the test controls; rate
 * limits live in PostgreSQL, so Redis carries only SSO replay protection and a Redis fault
 * shows on exactly the requests that need it. A second bridge keeps its rate limits in Redis.
 */
describe('fault matrix: PostgreSQL and Redis down or hung, under a steady mixed load', () => {
  let pgServer: PgServer;
  let redis: RedisServer;
  let pgProxy: TcpProxy;
  let redisProxy: TcpProxy;
  let data: BridgeData;
  let bridge: BridgeProcess;
  let limitsInRedis: BridgeProcess;
  let target: Target;
  const report: string[] = [];

  beforeAll(async () => {
    [pgServer, redis] = await Promise.all([startPgServer(), startRedisServer()]);
    [pgProxy, redisProxy] = await Promise.all([
      startTcpProxy(pgServer.port),
      startTcpProxy(redis.port),
    ]);
    data = newBridgeData(`postgres://postgres@127.0.0.1:${pgProxy.port}/postgres`);
    const env = {
      ...TIMEOUTS,
      REDIS_URL: `redis://127.0.0.1:${redisProxy.port}`,
      BRIDGE_RATE_LIMIT_PER_MINUTE: '1000000',
      BRIDGE_SSO_RATE_LIMIT_PER_MINUTE: '1000000',
    };
    bridge = await startBridgeProcess({ data, env: { ...env, BRIDGE_RATE_LIMIT_STORE: 'store' } });
    limitsInRedis = await startBridgeProcess({
      data,
      env: { ...env, BRIDGE_RATE_LIMIT_STORE: 'redis' },
    });
    const { key } = await createApiKey(data);
    target = await newTarget(bridge, key);
    // Full embed on, so the browser sign-in reaches replay protection.
    const patched = await fetch(`${bridge.url}/api/public/organizations/${target.orgId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ fullEmbedEnabled: true, embedAllowedOrigins: [HOST_ORIGIN] }),
    });
    expect(patched.status).toBe(200);
    await warmUp(target, PER_SECOND);
  }, 90_000);

  afterAll(async () => {
    if (report.length) console.log(report.join('\n'));
    await bridge?.stop();
    await limitsInRedis?.stop();
    await pgProxy?.close();
    await redisProxy?.close();
    await pgServer?.destroy();
    await redis?.stop();
    if (data) removeBridgeData(data);
  });

  describe('PostgreSQL down (server stopped, then started again)', () => {
    let result: CaseResult;
    let health: Awaited<ReturnType<typeof healthz>>;

    beforeAll(async () => {
      result = await runCase(target, {
        perSecond: PER_SECOND,
        faultMs: FAULT_MS,
        inject: () => pgServer.pause(),
        repair: () => pgServer.resume(),
        during: async () => {
          health = await healthz(bridge);
        },
      });
      report.push(describeResult('PostgreSQL down', result));
    }, 60_000);

    it('answers every kind of request 503 with Retry-After while down, never 500 or a reset', () => {
      expectOnlySuccessOr503(result, STORE_CODES);
      expectBrokenAs(result, { failing: ['read', 'write', 'sso'] });
    });

    it('keeps memory bounded while down', () => {
      expect(result.rssGrowthMb).toBeLessThan(RSS_GROWTH_MB);
    });

    it('names the store on /healthz', () => {
      expect(health.status).toBe(503);
      expect(health.body.error?.code).toBe('store_unavailable');
      expect(health.body.error?.params).toMatchObject({
        dependency: 'store',
        store: 'unavailable',
        redis: 'ok',
      });
    });

    it('recovers by itself and loses no acknowledged write', () => {
      expect(result.recoveryMs).toBeLessThan(10_000);
      expect(result.acks).toBeGreaterThan(0);
      expect(result.lost).toBe(0);
    });
  });

  describe('PostgreSQL hung (connections open, nothing comes back)', () => {
    let result: CaseResult;
    let health: Awaited<ReturnType<typeof healthz>>;

    beforeAll(async () => {
      result = await runCase(target, {
        perSecond: PER_SECOND,
        faultMs: FAULT_MS,
        inject: async () => pgProxy.pause(),
        repair: async () => pgProxy.pass(),
        during: async () => {
          health = await healthz(bridge);
        },
      });
      report.push(describeResult('PostgreSQL hung', result));
    }, 60_000);

    it('answers 503 with Retry-After within the bounded waits, never 500 or a reset', () => {
      expectOnlySuccessOr503(result, STORE_CODES);
      expectBrokenAs(result, { failing: ['read', 'write', 'sso'] });
      expect(result.slowestBrokenMs).toBeLessThan(SLOWEST_MS);
    });

    it('answers /healthz within its own deadline, naming the store', () => {
      expect(health.status).toBe(503);
      expect(health.ms).toBeLessThan(HEALTHZ_WITHIN_MS);
      expect(health.body.error?.code).toBe('store_unavailable');
      expect(health.body.error?.params).toMatchObject({ dependency: 'store', fault: 'timeout' });
    });

    it('keeps memory bounded while it hangs', () => {
      expect(result.rssGrowthMb).toBeLessThan(RSS_GROWTH_MB);
      // Open loop at 30/s: what is in flight stays near rate × the slowest answer.
      expect(result.maxInFlight).toBeLessThan((PER_SECOND * SLOWEST_MS) / 1000 + 20);
    });

    it('recovers by itself and loses no acknowledged write', () => {
      expect(result.recoveryMs).toBeLessThan(10_000);
      expect(result.lost).toBe(0);
    });
  });

  describe('Redis down (connections cut, new ones closed)', () => {
    let result: CaseResult;
    let health: Awaited<ReturnType<typeof healthz>>;
    const limited: number[] = [];
    let ready: { status: number; body: unknown };
    let browser: Awaited<ReturnType<typeof browserSignIn>>;
    let browserAfter: Awaited<ReturnType<typeof browserSignIn>>;

    beforeAll(async () => {
      result = await runCase(target, {
        perSecond: PER_SECOND,
        faultMs: FAULT_MS,
        inject: async () => redisProxy.cut(),
        repair: async () => redisProxy.pass(),
        during: async () => {
          health = await healthz(bridge);
          const readyz = await fetch(`${bridge.url}/readyz`);
          ready = { status: readyz.status, body: await readyz.json() };
          browser = await browserSignIn(bridge, target);
          for (let i = 0; i < 3; i++) {
            const res = await fetch(`${limitsInRedis.url}/api/public/organizations`, {
              headers: { authorization: `Bearer ${target.key}` },
            });
            limited.push(res.status);
          }
        },
      });
      report.push(describeResult('Redis down', result));
      browserAfter = await browserSignIn(bridge, target);
    }, 60_000);

    it('answers SSO exchanges 503 (replay protection fails closed), never 500', () => {
      expectOnlySuccessOr503(result, ['redis_unavailable']);
      expectBrokenAs(result, { failing: ['sso'], serving: ['read', 'write'] });
    });

    it('answers the browser sign-in with a 503 page, and signs in again once Redis is back', () => {
      expect(browser).toEqual({ status: 503, type: 'text/html', retryAfter: '2' });
      expect(browserAfter).toMatchObject({ status: 302 });
    });

    it('serves API requests where the rate limits live in Redis (counted per instance meanwhile)', () => {
      expect(limited).toEqual([200, 200, 200]);
    });

    it('stays ready on /readyz, naming Redis as unavailable', () => {
      expect(ready).toEqual({
        status: 200,
        body: { status: 'ready', store: 'ok', redis: 'unavailable' },
      });
    });

    it('keeps memory bounded while down', () => {
      expect(result.rssGrowthMb).toBeLessThan(RSS_GROWTH_MB);
    });

    it('names Redis on /healthz', () => {
      expect(health.status).toBe(503);
      expect(health.body.error?.code).toBe('redis_unavailable');
      expect(health.body.error?.params).toMatchObject({
        dependency: 'redis',
        store: 'ok',
        redis: 'unavailable',
      });
    });

    it('recovers by itself', () => {
      expect(result.recoveryMs).toBeLessThan(10_000);
      expect(result.lost).toBe(0);
    });
  });

  describe('Redis hung (connections open, nothing comes back)', () => {
    let result: CaseResult;
    let health: Awaited<ReturnType<typeof healthz>>;

    beforeAll(async () => {
      result = await runCase(target, {
        perSecond: PER_SECOND,
        faultMs: FAULT_MS,
        inject: async () => redisProxy.pause(),
        repair: async () => redisProxy.pass(),
        during: async () => {
          health = await healthz(bridge);
        },
      });
      report.push(describeResult('Redis hung', result));
    }, 60_000);

    it('answers SSO exchanges 503 within the command timeout, never 500', () => {
      expectOnlySuccessOr503(result, ['redis_unavailable']);
      expectBrokenAs(result, { failing: ['sso'], serving: ['read', 'write'] });
      expect(result.slowestBrokenMs).toBeLessThan(SLOWEST_MS);
    });

    it('answers /healthz within its own deadline, naming Redis', () => {
      expect(health.status).toBe(503);
      expect(health.ms).toBeLessThan(HEALTHZ_WITHIN_MS);
      expect(health.body.error?.code).toBe('redis_unavailable');
      expect(health.body.error?.params).toMatchObject({ dependency: 'redis', store: 'ok' });
    });

    it('keeps memory bounded while it hangs', () => {
      expect(result.rssGrowthMb).toBeLessThan(RSS_GROWTH_MB);
    });

    it('recovers by itself', () => {
      expect(result.recoveryMs).toBeLessThan(10_000);
      expect(result.lost).toBe(0);
    });
  });

  describe('PostgreSQL and Redis slow, but within the bounds (50 ms a round trip)', () => {
    let result: CaseResult;

    beforeAll(async () => {
      // Lighter load: every PostgreSQL round trip is slower, so the pool serves fewer a second.
      result = await runCase(target, {
        perSecond: 12,
        faultMs: 5000,
        inject: async () => {
          pgProxy.delay(25);
          redisProxy.delay(25);
        },
        repair: async () => {
          pgProxy.pass();
          redisProxy.pass();
        },
      });
      report.push(describeResult('PostgreSQL and Redis slow', result));
    }, 60_000);

    it('serves every request, only slower: a bound is not a hair trigger', () => {
      expectOnlySuccessOr503(result, []);
      expectBrokenAs(result, { failing: [], serving: ['read', 'write', 'sso'] });
      expect(result.lost).toBe(0);
    });
  });

  it('never logged an unhandled error and kept both processes', () => {
    expect(bridge.stdout()).not.toContain('unhandled error');
    expect(limitsInRedis.stdout()).not.toContain('unhandled error');
    expect(bridge.alive() && limitsInRedis.alive()).toBe(true);
  });
});
