import { ErrorBody } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';
import { freePort } from '../../../test/support/free-port';
import { connectionOf, type PgCluster, startPgCluster } from '../../../test/support/pg-cluster';

let cluster: PgCluster;

beforeAll(async () => {
  cluster = await startPgCluster({ ssl: true, auth: 'scram-sha-256' });
});
afterAll(async () => {
  await cluster?.stop();
});

const WRONG_PASSWORD = 'pw-WRONG-verify-5m2x';

describe.each(ENGINES)('POST …/data-sources/verify on %s', (engine) => {
  let bridge: TestBridge;
  let admin: { key: string };
  let member: { key: string };
  let orgId: string;
  const base = () => `/api/public/organizations/${orgId}/data-sources`;
  const verify = (body: unknown, key = admin.key) =>
    bridge.request('POST', `${base()}/verify`, { key, body });

  beforeAll(async () => {
    bridge = await startBridge(engine);
    admin = await bridge.newUser();
    orgId = (
      await bridge.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: { name: 'Verify Org' },
      })
    ).body.data.id;
    const email = `verify-member-${engine}@example.com`;
    await bridge.request('POST', `/api/public/organizations/${orgId}/members`, {
      key: admin.key,
      body: { email, role: 'MEMBER' },
    });
    member = await bridge.newUser(email);
    await bridge.request('POST', base(), {
      key: admin.key,
      body: { dialect: 'POSTGRES', displayName: 'Existing', host: 'h.example.com', username: 'u' },
    });
  });
  afterAll(() => bridge.stop());

  it('answers 200 {data:{success:true}} for the right password (TLS by default)', async () => {
    const res = await verify(connectionOf(cluster));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { success: true } });
  });

  it('answers 422 VerificationFailed on username and password for a wrong password', async () => {
    const res = await verify({ ...connectionOf(cluster), password: WRONG_PASSWORD });
    expect(res.status).toBe(422);
    const error = ErrorBody.parse(res.body).error;
    expect(error.title).toBe('VerificationFailed');
    expect(Object.keys(error.fieldErrors ?? {}).sort()).toEqual(['password', 'username']);
    expect(error.code).toBe('auth_failed');
    expect(error.fieldCodes).toEqual({ username: 'auth_failed', password: 'auth_failed' });
  });

  it('answers 422 on databaseName for a database that does not exist', async () => {
    const res = await verify({ ...connectionOf(cluster), databaseName: 'no_such_database' });
    expect(res.status).toBe(422);
    const error = ErrorBody.parse(res.body).error;
    expect(error.title).toBe('VerificationFailed');
    expect(Object.keys(error.fieldErrors ?? {})).toEqual(['databaseName']);
    expect(error.code).toBe('database_not_found');
    expect(error.fieldCodes).toEqual({ databaseName: 'database_not_found' });
  });

  it('answers 422 on port when the connection is refused', async () => {
    const port = await freePort();
    const res = await verify({ ...connectionOf(cluster), port });
    expect(res.status).toBe(422);
    const error = ErrorBody.parse(res.body).error;
    expect(error.title).toBe('VerificationFailed');
    expect(Object.keys(error.fieldErrors ?? {})).toEqual(['port']);
    expect(error.code).toBe('connection_refused');
    expect(error.fieldCodes).toEqual({ port: 'connection_refused' });
    expect(error.params).toEqual({ port });
  });

  it('answers 400 ValidationError on dialect when dialect is missing', async () => {
    const { dialect: _, ...body } = connectionOf(cluster);
    const res = await verify(body);
    expect(res.status).toBe(400);
    const error = ErrorBody.parse(res.body).error;
    expect(error.title).toBe('ValidationError');
    expect(error.fieldErrors).toHaveProperty('dialect');
    expect(error.code).toBe('validation_failed');
    expect(error.fieldCodes?.dialect).toBe('required');
  });

  it('answers 400 ValidationError on an unknown field (displayName is not a verify field)', async () => {
    const res = await verify({ ...connectionOf(cluster), displayName: 'Not here' });
    expect(res.status).toBe(400);
    expect(ErrorBody.parse(res.body).error.title).toBe('ValidationError');
    expect(res.body.error.fieldErrors).toHaveProperty('displayName');
    expect(res.body.error.fieldCodes.displayName).toBe('unknown_field');
  });

  it('answers 400 on port for port 65536, without connecting', async () => {
    const res = await verify({ ...connectionOf(cluster), port: 65536 });
    expect(res.status).toBe(400);
    expect(ErrorBody.parse(res.body).error.title).toBe('ValidationError');
    expect(Object.keys(res.body.error.fieldErrors)).toEqual(['port']);
    expect(res.body.error.fieldCodes).toEqual({ port: 'out_of_range' });
  });

  it('answers 403 Forbidden to a MEMBER', async () => {
    const res = await verify(connectionOf(cluster), member.key);
    expect(res.status).toBe(403);
    expect(ErrorBody.parse(res.body).error.title).toBe('Forbidden');
    expect(res.body.error.code).toBe('admin_required');
  });

  it('creates and changes nothing (the list stays the same)', async () => {
    const before = await bridge.request('GET', base(), { key: admin.key });
    await verify(connectionOf(cluster));
    await verify({ ...connectionOf(cluster), password: WRONG_PASSWORD });
    const after = await bridge.request('GET', base(), { key: admin.key });
    expect(after.status).toBe(200);
    expect(after.body).toEqual(before.body);
  });

  it('puts neither password in the failure response nor in any log line', async () => {
    const res = await verify({ ...connectionOf(cluster), password: WRONG_PASSWORD });
    expect(res.status).toBe(422);
    const logs = bridge.logs.join('\n');
    for (const secret of [WRONG_PASSWORD, cluster.password]) {
      expect(res.text).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
  });
});
