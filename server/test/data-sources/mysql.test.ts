import { DataSource } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';
import { type MariaDb, mysqlConnectionOf, startMariaDb } from '../../../test/support/mariadb';

let server: MariaDb;

beforeAll(async () => {
  server = await startMariaDb({ tls: false });
});
afterAll(() => server?.stop());

describe.each(ENGINES)('MYSQL data sources on %s', (engine) => {
  let bridge: TestBridge;
  let key: string;
  let orgId: string;
  const base = () => `/api/public/organizations/${orgId}/data-sources`;

  beforeAll(async () => {
    bridge = await startBridge(engine);
    key = (await bridge.newUser()).key;
    orgId = (
      await bridge.request('POST', '/api/public/organizations', {
        key,
        body: { name: 'MySQL Org' },
      })
    ).body.data.id;
  });
  afterAll(() => bridge.stop());

  it('creates one (201), stores the dialect and keeps the password out of the record', async () => {
    const res = await bridge.request('POST', base(), {
      key,
      body: {
        dialect: 'MYSQL',
        displayName: 'Shop',
        host: 'shop-db.example.com',
        username: 'bi',
        password: 'mysql-pw-1',
      },
    });
    expect(res.status).toBe(201);
    const record = DataSource.parse(res.body.data);
    expect(record).toMatchObject({
      dialect: 'MYSQL',
      host: 'shop-db.example.com',
      port: null,
      sslEnabled: true,
      storedSecrets: ['password'],
    });
    expect(res.text).not.toContain('mysql-pw-1');
    const got = await bridge.request('GET', `${base()}/${record.id}`, { key });
    expect(got.body.data).toEqual(res.body.data);
  });

  it('updates one, and refuses a PATCH that would leave it without a host', async () => {
    const created = await bridge.request('POST', base(), {
      key,
      body: { dialect: 'MYSQL', displayName: 'Patch me', host: 'h.example.com', username: 'u' },
    });
    const url = `${base()}/${created.body.data.id}`;
    const patched = await bridge.request('PATCH', url, { key, body: { port: 3307 } });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ dialect: 'MYSQL', port: 3307 });
    const blank = await bridge.request('PATCH', url, { key, body: { host: ' ' } });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({
      error: {
        title: 'ValidationError',
        detail: 'The data source would be incomplete',
        code: 'data_source_incomplete',
        fieldErrors: { host: 'Required' },
        fieldCodes: { host: 'required' },
      },
    });
  });

  it('verifies against a real MariaDB (200)', async () => {
    const res = await bridge.request('POST', `${base()}/verify`, {
      key,
      body: { ...mysqlConnectionOf(server), sslEnabled: false },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { success: true } });
  });

  it('answers 422 on username and password for a wrong password', async () => {
    const res = await bridge.request('POST', `${base()}/verify`, {
      key,
      body: { ...mysqlConnectionOf(server), sslEnabled: false, password: 'wrong-mysql-pw' },
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: {
        title: 'VerificationFailed',
        detail: 'The database rejected the username or password.',
        code: 'auth_failed',
        fieldErrors: { username: 'Authentication failed.', password: 'Authentication failed.' },
        fieldCodes: { username: 'auth_failed', password: 'auth_failed' },
      },
    });
    expect(bridge.logs.join('\n')).not.toContain('wrong-mysql-pw');
  });
});
