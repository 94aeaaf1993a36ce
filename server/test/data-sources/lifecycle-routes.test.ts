import { DataSource, ErrorBody } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';
import { freePort } from '../../../test/support/free-port';
import { runJob, slotOf } from '../../src/lifecycle/jobs';
import { expectError } from './support';

const MINIMAL = {
  dialect: 'POSTGRES',
  displayName: 'Warehouse',
  host: 'db.example.com',
  username: 'analyst',
};

/** The health-check, sync and schema routes: who may call them, and every bad input. */
describe.each(ENGINES)('data source lifecycle routes on %s', (engine) => {
  let bridge: TestBridge;
  let admin: { key: string };
  let member: { key: string };
  let stranger: { key: string };
  let orgId: string;
  let sourceId: string;
  const base = () => `/api/public/organizations/${orgId}/data-sources`;
  const ROUTES = [
    ['POST', 'health-check'],
    ['POST', 'sync'],
    ['GET', 'schema'],
  ] as const;

  beforeAll(async () => {
    bridge = await startBridge(engine);
    admin = await bridge.newUser();
    stranger = await bridge.newUser();
    orgId = (
      await bridge.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: { name: 'Routes' },
      })
    ).body.data.id;
    const email = `lifecycle-member-${engine}@example.com`;
    await bridge.request('POST', `/api/public/organizations/${orgId}/members`, {
      key: admin.key,
      body: { email, role: 'MEMBER' },
    });
    member = await bridge.newUser(email);
    sourceId = (await bridge.request('POST', base(), { key: admin.key, body: MINIMAL })).body.data
      .id;
  });
  afterAll(() => bridge.stop());

  it.each(ROUTES)('%s …/%s without a key: 401 Unauthorized', async (method, route) => {
    const res = await bridge.request(method, `${base()}/${sourceId}/${route}`);
    expectError(res, 401, 'Unauthorized', 'invalid_credentials');
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  it.each(ROUTES)('%s …/%s of an unknown data source: 404 NotFound', async (method, route) => {
    const res = await bridge.request(method, `${base()}/ds_0000000000unknown/${route}`, {
      key: admin.key,
    });
    expectError(res, 404, 'NotFound', 'data_source_not_found');
  });

  it.each(ROUTES)('%s …/%s for a non-member: 404, as if absent', async (method, route) => {
    const res = await bridge.request(method, `${base()}/${sourceId}/${route}`, {
      key: stranger.key,
    });
    expectError(res, 404, 'NotFound', 'organization_not_found');
  });

  it.each([
    ['POST', 'health-check'],
    ['POST', 'sync'],
  ] as const)('%s …/%s by a MEMBER: 403 Forbidden', async (method, route) => {
    const res = await bridge.request(method, `${base()}/${sourceId}/${route}`, {
      key: member.key,
    });
    expectError(res, 403, 'Forbidden', 'admin_required');
  });

  it('GET …/schema by a MEMBER: 200, empty until a sync succeeds', async () => {
    const res = await bridge.request('GET', `${base()}/${sourceId}/schema`, { key: member.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: { dataSourceId: sourceId, readAt: null, truncated: false, tableCount: 0, tables: [] },
      pagination: { nextCursor: null, hasMore: false },
    });
  });

  it.each([
    ['limit=0', 'validation_failed', { limit: 'out_of_range' }],
    ['limit=101', 'validation_failed', { limit: 'out_of_range' }],
    ['limit=abc', 'validation_failed', { limit: 'invalid_format' }],
    ['cursor=abc', 'invalid_cursor', { cursor: 'invalid_format' }],
    ['cursor=', 'invalid_cursor', { cursor: 'required' }],
    ['page=2', 'unknown_parameter', { page: 'unknown_field' }],
  ])(
    'GET …/schema?%s: 400 ValidationError (%s) on that parameter',
    async (query, code, fieldCodes) => {
      const res = await bridge.request('GET', `${base()}/${sourceId}/schema?${query}`, {
        key: admin.key,
      });
      expect(res.status).toBe(400);
      const error = ErrorBody.parse(res.body).error;
      expect(error.title).toBe('ValidationError');
      expect(error.code).toBe(code);
      expect(Object.keys(error.fieldErrors ?? {})).toEqual(Object.keys(fieldCodes));
      expect(error.fieldCodes).toEqual(fieldCodes);
    },
  );

  it('POST …/sync: 202 with the record as it stands', async () => {
    const res = await bridge.request('POST', `${base()}/${sourceId}/sync`, { key: admin.key });
    expect(res.status).toBe(202);
    expect(DataSource.parse(res.body.data)).toMatchObject({
      id: sourceId,
      lastSyncStatus: 'PENDING',
    });
  });

  it('POST …/health-check: 200, UNHEALTHY with the reason verify would give, never a secret', async () => {
    const port = await freePort();
    const created = await bridge.request('POST', base(), {
      key: admin.key,
      body: { ...MINIMAL, host: '127.0.0.1', port, password: 'health-pw-9', sslEnabled: false },
    });
    const res = await bridge.request('POST', `${base()}/${created.body.data.id}/health-check`, {
      key: admin.key,
    });
    expect(res.status).toBe(200);
    const record = DataSource.parse(res.body.data);
    expect(record.lastHealthStatus).toBe('UNHEALTHY');
    expect(record.lastHealthyAt).toBeNull();
    expect(record.lastHealthCheckAttemptAt).not.toBeNull();
    expect(record.healthErrorMessage).toMatch(/refused/i);
    expect(record.healthErrorMessage).toContain(String(port));
    expect(res.text).not.toContain('health-pw-9');
    const got = await bridge.request('GET', `${base()}/${record.id}`, { key: admin.key });
    expect(got.body.data).toEqual(res.body.data);
  });

  it('POST …/health-check with every connection slot taken: 429, Retry-After', async () => {
    const held = [];
    for (let r = bridge.deps.connectionSlots.tryAcquire(); r; ) {
      held.push(r);
      r = bridge.deps.connectionSlots.tryAcquire();
    }
    try {
      const res = await bridge.request('POST', `${base()}/${sourceId}/health-check`, {
        key: admin.key,
      });
      expectError(res, 429, 'TooManyRequests', 'connections_busy');
      expect(res.headers.get('retry-after')).toBe('1');
    } finally {
      for (const release of held) release();
    }
  });

  it('drops a scheduled check whose interval is over, and runs one of the current interval', async () => {
    const port = await freePort();
    const created = await bridge.request('POST', base(), {
      key: admin.key,
      body: { ...MINIMAL, host: '127.0.0.1', port, sslEnabled: false },
    });
    const id = created.body.data.id as string;
    const seconds = bridge.deps.config.healthIntervalSeconds;
    const now = new Date();
    const signal = new AbortController().signal;
    const stale = new Date(slotOf(now, seconds).getTime() - seconds * 1000);
    expect(await runJob(bridge.deps, 'health', id, stale, signal)).toBe('late');
    const untouched = await bridge.request('GET', `${base()}/${id}`, { key: admin.key });
    expect(untouched.body.data.lastHealthCheckAttemptAt).toBeNull();
    expect(await runJob(bridge.deps, 'health', id, slotOf(now, seconds), signal)).toBe('ran');
    const checked = await bridge.request('GET', `${base()}/${id}`, { key: admin.key });
    expect(checked.body.data.lastHealthStatus).toBe('UNHEALTHY');
  });
});
