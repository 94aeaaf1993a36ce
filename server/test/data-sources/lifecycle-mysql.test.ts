import { randomBytes } from 'node:crypto';
import { DataSource, DataSourceSchema } from '@bridgekit/contract';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';

// The machine's MariaDB (root, no password): a private database, dropped after.
const DATABASE = `bk_sync_${randomBytes(5).toString('hex')}`;
const root = () => mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root' });

beforeAll(async () => {
  const c = await root();
  await c.query(`create database ${DATABASE}`);
  await c.query(`create table ${DATABASE}.items (id int not null primary key, label varchar(40))`);
  await c.query(`create view ${DATABASE}.labels as select label from ${DATABASE}.items`);
  await c.end();
});
afterAll(async () => {
  const c = await root();
  await c.query(`drop database if exists ${DATABASE}`);
  await c.end();
});

describe.each(ENGINES)('MYSQL sync on %s', (engine) => {
  let bridge: TestBridge;
  let key: string;
  let orgId: string;

  beforeAll(async () => {
    bridge = await startBridge(engine, {
      BRIDGE_BACKGROUND_JOBS: 'true',
      BRIDGE_RATE_LIMIT_PER_MINUTE: '100000',
    });
    key = (await bridge.newUser()).key;
    orgId = (
      await bridge.request('POST', '/api/public/organizations', { key, body: { name: 'My' } })
    ).body.data.id;
  });
  afterAll(() => bridge?.stop());

  it('reads the database’s tables and views with their columns, and checks health', async () => {
    const base = `/api/public/organizations/${orgId}/data-sources`;
    const created = await bridge.request('POST', base, {
      key,
      body: {
        dialect: 'MYSQL',
        displayName: 'Shop',
        host: '127.0.0.1',
        username: 'root',
        databaseName: DATABASE,
        sslEnabled: false,
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    let record: DataSource;
    const end = Date.now() + 15_000;
    do {
      await new Promise((r) => setTimeout(r, 100));
      record = DataSource.parse((await bridge.request('GET', `${base}/${id}`, { key })).body.data);
    } while (record.lastSyncStatus !== 'SUCCEEDED' && Date.now() < end);
    expect(record).toMatchObject({ lastSyncStatus: 'SUCCEEDED', syncErrorMessage: null });

    const schema = DataSourceSchema.parse(
      (await bridge.request('GET', `${base}/${id}/schema`, { key })).body.data,
    );
    expect(schema.tables).toEqual([
      {
        schema: DATABASE,
        name: 'items',
        kind: 'TABLE',
        columns: [
          { name: 'id', type: 'int(11)', nullable: false },
          { name: 'label', type: 'varchar(40)', nullable: true },
        ],
      },
      {
        schema: DATABASE,
        name: 'labels',
        kind: 'VIEW',
        columns: [{ name: 'label', type: 'varchar(40)', nullable: true }],
      },
    ]);

    // A PATCH that leaves the connection as it was syncs nothing; one that changes it does.
    const renamed = await bridge.request('PATCH', `${base}/${id}`, {
      key,
      body: { description: 'Orders and labels' },
    });
    expect(renamed.status).toBe(200);
    await new Promise((r) => setTimeout(r, 1000));
    const unchanged = (await bridge.request('GET', `${base}/${id}`, { key })).body.data;
    expect(unchanged.lastSyncAttemptAt).toBe(record.lastSyncAttemptAt);
    const moved = await bridge.request('PATCH', `${base}/${id}`, {
      key,
      body: { databaseName: `${DATABASE}_gone` },
    });
    expect(moved.status).toBe(200);
    let failed = moved.body.data;
    while (failed.lastSyncStatus !== 'FAILED' && Date.now() < end + 15_000) {
      await new Promise((r) => setTimeout(r, 100));
      failed = (await bridge.request('GET', `${base}/${id}`, { key })).body.data;
    }
    expect(failed.lastSyncStatus).toBe('FAILED');
    expect(failed.syncErrorMessage).toMatch(/database/i);
    expect(failed.lastSuccessfulSyncAt).toBe(record.lastSuccessfulSyncAt);
    // The last good catalog stays until a sync succeeds again.
    const kept = await bridge.request('GET', `${base}/${id}/schema`, { key });
    expect(kept.body.data.tableCount).toBe(2);
    await bridge.request('PATCH', `${base}/${id}`, { key, body: { databaseName: DATABASE } });

    const checked = await bridge.request('POST', `${base}/${id}/health-check`, { key });
    expect(checked.status).toBe(200);
    expect(checked.body.data).toMatchObject({
      lastHealthStatus: 'HEALTHY',
      healthErrorMessage: null,
    });
  }, 30_000);
});

describe('a catalog over BRIDGE_SYNC_MAX_TABLES', () => {
  let bridge: TestBridge;
  afterAll(() => bridge?.stop());

  it('is cut there, in schema and name order, and says so', async () => {
    bridge = await startBridge('sqlite', {
      BRIDGE_BACKGROUND_JOBS: 'true',
      BRIDGE_SYNC_MAX_TABLES: '1',
    });
    const { key } = await bridge.newUser();
    const org = await bridge.request('POST', '/api/public/organizations', {
      key,
      body: { name: 'Cut' },
    });
    const base = `/api/public/organizations/${org.body.data.id}/data-sources`;
    const created = await bridge.request('POST', base, {
      key,
      body: {
        dialect: 'MYSQL',
        displayName: 'Cut',
        host: '127.0.0.1',
        username: 'root',
        databaseName: DATABASE,
        sslEnabled: false,
      },
    });
    const id = created.body.data.id;
    const end = Date.now() + 15_000;
    let status = 'PENDING';
    while (status !== 'SUCCEEDED' && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await bridge.request('GET', `${base}/${id}`, { key })).body.data.lastSyncStatus;
    }
    const schema = await bridge.request('GET', `${base}/${id}/schema`, { key });
    expect(schema.body.data).toMatchObject({ truncated: true, tableCount: 1 });
    expect(schema.body.data.tables.map((t: { name: string }) => t.name)).toEqual(['items']);
  }, 30_000);
});
