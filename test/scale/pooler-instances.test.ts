import { createSsoToken } from '@bridgekit/node';
import autocannon from 'autocannon';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seed, steps } from '../../bench/support/mixed-workload';
import { createPgDatabase } from '../support/bridge';
import {
  type BridgeData,
  createApiKey,
  newBridgeData,
  removeBridgeData,
} from '../support/bridge-data';
import { type BridgeProcess, startBridgeProcess } from '../support/bridge-process';
import { freePort } from '../support/free-port';
import { type PgBouncer, startPgBouncer } from '../support/pgbouncer';

const INSTANCES = 4;
const POOL_SIZE = 5;
const SERVER_CONNECTIONS = 10;
const CONNECTIONS_PER_INSTANCE = 5;
const LOAD_SECONDS = 15;
// The limit the test exhausts across the instances; the workload leaves verify out for it.
const VERIFY_LIMIT = 8;

async function call(
  bridge: BridgeProcess,
  method: string,
  path: string,
  options: { key?: string; body?: unknown } = {},
) {
  const headers: Record<string, string> = {};
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${bridge.url}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

describe(`${INSTANCES} instances (pool size ${POOL_SIZE}) through one PgBouncer in transaction mode limited to ${SERVER_CONNECTIONS} server connections`, () => {
  let bouncer: PgBouncer;
  let database: Awaited<ReturnType<typeof createPgDatabase>>;
  let data: BridgeData;
  let bridges: BridgeProcess[] = [];

  beforeAll(async () => {
    bouncer = await startPgBouncer({
      mode: 'transaction',
      defaultPoolSize: SERVER_CONNECTIONS,
      maxDbConnections: SERVER_CONNECTIONS,
    });
    database = await createPgDatabase();
    data = newBridgeData(bouncer.url(new URL(database.url).pathname.slice(1)));
    // All at once on a fresh database: their migrations meet at the lock, through the pooler.
    bridges = await Promise.all(
      Array.from({ length: INSTANCES }, () =>
        startBridgeProcess({
          data,
          env: {
            BRIDGE_PG_POOL_SIZE: String(POOL_SIZE),
            BRIDGE_RATE_LIMIT_PER_MINUTE: '1000000',
            BRIDGE_SSO_RATE_LIMIT_PER_MINUTE: '1000000',
            BRIDGE_VERIFY_RATE_LIMIT_PER_MINUTE: String(VERIFY_LIMIT),
          },
        }),
      ),
    );
  });

  afterAll(async () => {
    await Promise.all(bridges.map((b) => b.stop()));
    if (data) removeBridgeData(data);
    await database?.drop();
    await bouncer?.stop();
  });

  it('serves the soak mixed workload with 0 errors, keeps every acknowledged write, and shares replay protection', async () => {
    const world = await seed(bridges[0]!, data);
    const plan = steps(world, await freePort()).filter((s) => !s.name.startsWith('verify'));
    const unexpected: string[] = [];
    const answered = new Map<string, number>();
    const createdOrgs: string[] = [];
    const addedMembers: string[] = [];
    const requests: autocannon.Request[] = plan.map(({ name, expect, onResponse, ...request }) => ({
      ...request,
      onResponse: (status, body, context) => {
        answered.set(name, (answered.get(name) ?? 0) + 1);
        if (!expect.includes(status)) {
          if (unexpected.length < 10) unexpected.push(`${name}: ${status} ${body.slice(0, 200)}`);
          else unexpected.push(name);
        }
        if (status === 201 && name === 'create organization') {
          createdOrgs.push(JSON.parse(body).data.id);
        }
        if (status === 201 && name === 'add member') addedMembers.push(JSON.parse(body).data.id);
        onResponse?.(status, body, context);
      },
    }));

    // While the load runs: a token exchanged on one instance is refused on every other.
    const replay = (async () => {
      await new Promise((r) => setTimeout(r, 3000));
      const jwt = await createSsoToken({
        secret: world.jwtSecret,
        orgId: world.orgId,
        user: { email: 'replayed@example.com' },
      });
      const statuses = [];
      for (const bridge of bridges) {
        statuses.push((await call(bridge, 'POST', '/api/sso/jwt', { body: { jwt } })).status);
      }
      return statuses;
    })();
    const results = await Promise.all(
      bridges.map((bridge) =>
        autocannon({
          url: bridge.url,
          connections: CONNECTIONS_PER_INSTANCE,
          duration: LOAD_SECONDS,
          requests,
        }),
      ),
    );
    expect(await replay).toEqual([200, 401, 401, 401]);

    for (const result of results) {
      expect(result.errors + result.timeouts).toBe(0);
      expect(result['5xx']).toBe(0);
      expect(result.requests.total).toBeGreaterThan(plan.length);
    }
    expect(unexpected).toEqual([]);
    for (const step of plan) expect(answered.get(step.name) ?? 0).toBeGreaterThan(0);
    for (const bridge of bridges) expect(bridge.alive()).toBe(true);

    // Every write the instances acknowledged is in the database.
    expect(createdOrgs.length).toBeGreaterThan(0);
    expect(addedMembers.length).toBeGreaterThan(0);
    const direct = new pg.Client({ connectionString: database.url });
    await direct.connect();
    try {
      const orgs = await direct.query(
        'select count(*)::int as n from organizations where id = any($1)',
        [createdOrgs],
      );
      expect(orgs.rows[0].n).toBe(new Set(createdOrgs).size);
      const members = await direct.query(
        'select count(*)::int as n from members where id = any($1)',
        [addedMembers],
      );
      expect(members.rows[0].n).toBe(new Set(addedMembers).size);
      // The pooler kept its limit: never more server connections than it was given.
      const open = await direct.query(
        'select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
      );
      expect(open.rows[0].n).toBeLessThanOrEqual(SERVER_CONNECTIONS);
    } finally {
      await direct.end();
    }
  });

  it(`shares rate limits: ${VERIFY_LIMIT} verifies spread over the instances pass, then each refuses`, async () => {
    const { key } = await createApiKey(data);
    const created = await call(bridges[1]!, 'POST', '/api/public/organizations', {
      key,
      body: { name: 'Limited' },
    });
    expect(created.status).toBe(201);
    const verifyPath = `/api/public/organizations/${created.body.data.id}/data-sources/verify`;
    const body = {
      dialect: 'POSTGRES',
      host: '127.0.0.1',
      port: await freePort(),
      username: 'app',
      password: 'not-a-secret',
      sslEnabled: false,
    };
    const remaining: number[] = [];
    for (let i = 0; i < VERIFY_LIMIT; i++) {
      const res = await call(bridges[i % INSTANCES]!, 'POST', verifyPath, { key, body });
      expect(res.status).toBe(422);
      remaining.push(Number(res.headers.get('ratelimit-remaining')));
    }
    // One counter: the remaining count falls by one on every verify, whichever instance took it.
    expect(remaining).toEqual(Array.from({ length: VERIFY_LIMIT }, (_, i) => VERIFY_LIMIT - 1 - i));
    for (const bridge of bridges) {
      const res = await call(bridge, 'POST', verifyPath, { key, body });
      expect(res.status).toBe(429);
      expect(res.body.error.title).toBe('TooManyRequests');
      expect(res.body.error.code).toBe('rate_limited');
      expect(res.headers.get('ratelimit-remaining')).toBe('0');
    }
  });
});
