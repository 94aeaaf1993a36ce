import { createSsoToken } from '@bridgekit/node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type BridgeData,
  createApiKey,
  newBridgeData,
  removeBridgeData,
} from '../support/bridge-data';
import { type BridgeProcess, startBridgeProcess } from '../support/bridge-process';
import { type PgServer, startPgServer } from '../support/pg-server';

// With the store down, requests get 503 within 2 s instead of hanging. The pool's connect
// timeout is 1.5 s; a stopped server refuses at once, so answers take milliseconds and the 2 s
// bound leaves a wide margin.
const WITHIN_MS = 2000;

interface Outcome {
  name: string;
  status: number;
  title: string | undefined;
  retryAfter: string | null;
  ms: number;
}

async function timed(
  bridge: BridgeProcess,
  name: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown } = {},
): Promise<Outcome> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const started = performance.now();
  const res = await fetch(`${bridge.url}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    redirect: 'manual',
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  const ms = performance.now() - started;
  let title: string | undefined;
  try {
    title = JSON.parse(text).error?.title;
  } catch {}
  return { name, status: res.status, title, retryAfter: res.headers.get('retry-after'), ms };
}

describe('a bridge process whose PostgreSQL stops and comes back', () => {
  let pgServer: PgServer;
  let data: BridgeData;
  let bridge: BridgeProcess;
  let key: string;
  let orgId: string;
  let jwtSecret: string;
  let sessionToken: string;

  /** One of every kind of request: open, API key, session (rate limiter first), SSO. */
  const everyKind = async (round: number): Promise<Outcome[]> => {
    const sso = () =>
      createSsoToken({ secret: jwtSecret, orgId, user: { email: `f${round}@example.com` } });
    return Promise.all([
      timed(bridge, 'healthz', 'GET', '/healthz'),
      timed(bridge, 'list orgs (key)', 'GET', '/api/public/organizations', { token: key }),
      timed(bridge, 'create org (key)', 'POST', '/api/public/organizations', {
        token: key,
        body: { name: `During fault ${round}` },
      }),
      timed(bridge, 'get org (session)', 'GET', `/api/public/organizations/${orgId}`, {
        token: sessionToken,
      }),
      timed(bridge, 'list members (session)', 'GET', `/api/public/organizations/${orgId}/members`, {
        token: sessionToken,
      }),
      timed(bridge, 'sso exchange', 'POST', '/api/sso/jwt', { body: { jwt: await sso() } }),
      timed(bridge, 'sso browser', 'GET', `/api/sso/jwt?jwt=${await sso()}`),
    ]);
  };

  beforeAll(async () => {
    pgServer = await startPgServer();
    data = newBridgeData(pgServer.url);
    // No REDIS_URL: the rate limiter keeps its counters in this PostgreSQL too. Its limit is
    // raised so the request stream below (thousands in 3 s) meets faults, not the limit.
    bridge = await startBridgeProcess({
      data,
      env: { BRIDGE_RATE_LIMIT_PER_MINUTE: '1000000' },
    });
    ({ key } = await createApiKey(data));
    const created = await timed(bridge, 'setup', 'POST', '/api/public/organizations', {
      token: key,
      body: { name: 'Fault' },
    });
    expect(created.status).toBe(201);
    const org = await (
      await fetch(`${bridge.url}/api/public/organizations?include=jwtSecret`, {
        headers: { authorization: `Bearer ${key}` },
      })
    ).json();
    orgId = org.data[0].id;
    jwtSecret = org.data[0].jwtSecret;
    const jwt = await createSsoToken({
      secret: jwtSecret,
      orgId,
      user: { email: 'fault@example.com' },
    });
    const exchanged = await (
      await fetch(`${bridge.url}/api/sso/jwt`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jwt }),
      })
    ).json();
    sessionToken = exchanged.data.sessionToken;
  }, 90_000);

  afterAll(async () => {
    await bridge?.stop();
    await pgServer?.destroy();
    if (data) removeBridgeData(data);
  });

  describe('while the store is down', () => {
    const outcomes: Outcome[] = [];

    beforeAll(async () => {
      await pgServer.pause();
      for (let round = 0; round < 3; round++) outcomes.push(...(await everyKind(round)));
    }, 60_000);

    it('answers every request 503 ServiceUnavailable with Retry-After', () => {
      for (const o of outcomes) {
        expect({ name: o.name, status: o.status, title: o.title }).toEqual({
          name: o.name,
          status: 503,
          title: 'ServiceUnavailable',
        });
        expect(Number(o.retryAfter), o.name).toBeGreaterThan(0);
      }
    });

    it(`answers within ${WITHIN_MS} ms`, () => {
      const slowest = outcomes.reduce((a, b) => (b.ms > a.ms ? b : a));
      expect(slowest.ms, slowest.name).toBeLessThan(WITHIN_MS);
    });

    it('answers a session 503 too, never 500', async () => {
      // A session's request checks its membership in the store before the rate limiter.
      const session = outcomes.filter((o) => o.name.includes('(session)'));
      expect(session.map((o) => o.status)).toEqual(Array(session.length).fill(503));
      // Refused connections or ones that time out, as the paused server happens to answer; the
      // log is written in batches (every 200 ms).
      await vi.waitFor(
        () => expect(bridge.stdout()).toMatch(/The store (is unavailable|did not answer in time)/),
        { timeout: 2000 },
      );
      expect(bridge.stdout()).not.toContain('unhandled error');
    });

    it('reports the store on /healthz', async () => {
      const health = await timed(bridge, 'healthz', 'GET', '/healthz');
      expect(health.status).toBe(503);
      expect(health.title).toBe('ServiceUnavailable');
    });

    it('stays up', () => {
      expect(bridge.alive()).toBe(true);
      expect(() => process.kill(bridge.pid, 0)).not.toThrow();
    });
  });

  describe('once the store is back', () => {
    let recoveredMs: number;

    beforeAll(async () => {
      await pgServer.resume();
      const started = Date.now();
      for (;;) {
        const res = await timed(bridge, 'poll', 'GET', '/api/public/organizations', {
          token: key,
        });
        if (res.status === 200) break;
        expect(res.status).toBe(503);
        if (Date.now() - started > 20_000) throw new Error('the bridge did not recover in 20 s');
        await new Promise((r) => setTimeout(r, 200));
      }
      recoveredMs = Date.now() - started;
    }, 60_000);

    it('serves every kind of request again by itself', async () => {
      const outcomes = await everyKind(99);
      const expected: Record<string, number> = {
        healthz: 200,
        'list orgs (key)': 200,
        'create org (key)': 201,
        'get org (session)': 200,
        'list members (session)': 200,
        'sso exchange': 200,
        // Full embed is off for this organization.
        'sso browser': 403,
      };
      expect(Object.fromEntries(outcomes.map((o) => [o.name, o.status]))).toEqual(expected);
      expect(recoveredMs).toBeLessThan(20_000);
    });

    it('kept the process it started with', () => {
      expect(bridge.alive()).toBe(true);
    });
  });

  describe('under a stream of requests while the store goes down and comes back', () => {
    const statuses = new Map<number, number>();
    let slowest = 0;

    beforeAll(async () => {
      let running = true;
      const worker = async (i: number) => {
        while (running) {
          // A socket error (the process died, a connection was dropped) is counted as 0.
          const o = await timed(bridge, 'stream', 'GET', `/api/public/organizations/${orgId}`, {
            token: i % 2 ? key : sessionToken,
          }).catch(() => ({ status: 0, ms: 0 }));
          statuses.set(o.status, (statuses.get(o.status) ?? 0) + 1);
          if (o.status === 503) slowest = Math.max(slowest, o.ms);
        }
      };
      const workers = Array.from({ length: 8 }, (_, i) => worker(i));
      await new Promise((r) => setTimeout(r, 300));
      await pgServer.pause();
      await new Promise((r) => setTimeout(r, 1000));
      await pgServer.resume();
      await new Promise((r) => setTimeout(r, 1500));
      running = false;
      await Promise.all(workers);
    }, 60_000);

    it('answers only 200 or 503: never 500, never a dropped connection', () => {
      expect([...statuses.keys()].sort()).toEqual([200, 503]);
      expect(bridge.alive()).toBe(true);
    });

    it(`answers each 503 within ${WITHIN_MS} ms`, () => {
      expect(slowest).toBeLessThan(WITHIN_MS);
    });
  });
});
