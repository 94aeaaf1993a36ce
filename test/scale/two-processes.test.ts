import { createSsoToken } from '@bridgekit/node';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase } from '../support/bridge';
import {
  type BridgeData,
  createApiKey,
  newBridgeData,
  removeBridgeData,
} from '../support/bridge-data';
import { type BridgeProcess, startBridgeProcess } from '../support/bridge-process';

const REDIS_URL = 'redis://127.0.0.1:6379';
const LIMIT = 20;

async function call(
  bridge: BridgeProcess,
  method: string,
  path: string,
  options: { token?: string; body?: unknown } = {},
) {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${bridge.url}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

describe.each([
  ['Redis', { REDIS_URL }],
  ['the PostgreSQL store', {}],
] as const)('two bridge processes on one PostgreSQL, shared state in %s', (where, extraEnv) => {
  let database: { url: string; drop(): Promise<void> };
  let data: BridgeData;
  let one: BridgeProcess;
  let two: BridgeProcess;
  let org: { id: string; jwtSecret: string };
  /** Ids that name this run's keys in the shared Redis, removed afterwards. */
  const ids: string[] = [];

  beforeAll(async () => {
    database = await createPgDatabase();
    data = newBridgeData(database.url);
    const env = { ...extraEnv, BRIDGE_RATE_LIMIT_PER_MINUTE: String(LIMIT) };
    // One after the other, so the second finds the migrations applied.
    one = await startBridgeProcess({ data, env });
    two = await startBridgeProcess({ data, env });
    const owner = await createApiKey(data);
    ids.push(owner.keyId);
    const res = await call(one, 'POST', '/api/public/organizations?include=jwtSecret', {
      token: owner.key,
      body: { name: 'Scale-out' },
    });
    expect(res.status).toBe(201);
    org = res.body.data;
    ids.push(org.id);
  });

  afterAll(async () => {
    await Promise.all([one?.stop(), two?.stop()]);
    await database?.drop();
    if (data) removeBridgeData(data);
    if (where === 'Redis' && ids.length > 0) {
      const redis = new Redis(REDIS_URL);
      try {
        const keys = (await redis.keys('bk:*')).filter((k) => ids.some((id) => k.includes(id)));
        if (keys.length > 0) await redis.del(...keys);
      } finally {
        await redis.quit();
      }
    }
  });

  const token = (email: string, jti?: string) =>
    createSsoToken({ secret: org.jwtSecret, orgId: org.id, user: { email }, jti });
  const exchange = (bridge: BridgeProcess, jwt: string) =>
    call(bridge, 'POST', '/api/sso/jwt', { body: { jwt } });

  it('refuses on the second a jti used on the first', async () => {
    const jwt = await token('replay@example.com');
    const first = await exchange(one, jwt);
    expect(first.status).toBe(200);
    ids.push(first.body.data.member.id);
    const replay = await exchange(two, jwt);
    expect(replay.status).toBe(401);
    expect(replay.body.error.title).toBe('Unauthorized');
  });

  it('accepts on the second a session issued by the first', async () => {
    const res = await exchange(one, await token('session@example.com'));
    expect(res.status).toBe(200);
    ids.push(res.body.data.member.id);
    const api = await call(two, 'GET', `/api/public/organizations/${org.id}`, {
      token: res.body.data.sessionToken,
    });
    expect(api.status).toBe(200);
    expect(api.body.data.id).toBe(org.id);
  });

  it(`counts one key's requests across both: ${LIMIT} pass, the next gets 429`, async () => {
    const { key, keyId } = await createApiKey(data);
    ids.push(keyId);
    const remaining: number[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const res = await call(i % 2 ? two : one, 'GET', '/api/public/organizations', {
        token: key,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe(String(LIMIT));
      remaining.push(Number(res.headers.get('ratelimit-remaining')));
    }
    // One counter: the remaining count falls by one on every request, whichever process took it.
    expect(remaining).toEqual(Array.from({ length: LIMIT }, (_, i) => LIMIT - 1 - i));

    for (const bridge of [one, two]) {
      const res = await call(bridge, 'GET', '/api/public/organizations', { token: key });
      expect(res.status).toBe(429);
      expect(res.body.error.title).toBe('TooManyRequests');
      const retryAfter = Number(res.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(res.headers.get('ratelimit-limit')).toBe(String(LIMIT));
      expect(res.headers.get('ratelimit-remaining')).toBe('0');
      expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    }
  });

  it('gives 50 concurrent first logins for one email across both one user and one member', async () => {
    const email = `first-${Date.now()}@example.com`;
    const tokens = await Promise.all(Array.from({ length: 50 }, () => token(email)));
    const responses = await Promise.all(tokens.map((jwt, i) => exchange(i % 2 ? two : one, jwt)));
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(200));
    const memberIds = new Set(responses.map((r) => r.body.data.member.id as string));
    expect(memberIds.size).toBe(1);
    ids.push(...memberIds);

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const users = await client.query('select id from users where email = $1', [email]);
      expect(users.rows).toHaveLength(1);
      const members = await client.query(
        'select id from members where organization_id = $1 and user_id = $2',
        [org.id, users.rows[0].id],
      );
      expect(members.rows.map((r) => r.id)).toEqual([...memberIds]);
    } finally {
      await client.end();
    }
  });
});
