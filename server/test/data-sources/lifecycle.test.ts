import { DataSource, DataSourceSchema } from '@bridgekit/contract';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';
import { type PgServer, startPgServer } from '../../../test/support/pg-server';
import { startTcpProxy, type TcpProxy } from '../../../test/support/tcp-proxy';
import { until } from '../../../test/support/wait';

// Shortened intervals: a check and a sync every two seconds. (With one second, a scheduled
// check is dropped when it starts after its own second is over, and on a loaded machine pg-boss
// through PgBouncer picked every one up too late: the suite once saw no check for 20 s.)
const LIFECYCLE_ENV = {
  BRIDGE_BACKGROUND_JOBS: 'true',
  BRIDGE_HEALTH_INTERVAL_S: '2',
  BRIDGE_SYNC_INTERVAL_S: '2',
  BRIDGE_SYNC_TIMEOUT_S: '1',
  BRIDGE_VERIFY_TIMEOUT_MS: '2000',
  BRIDGE_RATE_LIMIT_PER_MINUTE: '100000',
};
const PASSWORD = 'lifecycle-secret-pw';

let server: PgServer;

beforeAll(async () => {
  server = await startPgServer();
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  await client.query(`create schema sales;
    create table sales.orders (id integer primary key, note text, total numeric(10, 2) not null);
    create view sales.order_totals as select id, total from sales.orders;
    create table public.customers (email varchar(200) not null)`);
  await client.end();
});
afterAll(() => server?.destroy());

describe.each(STORE_ENGINES)('data source lifecycle on %s', (engine) => {
  let bridge: TestBridge;
  let proxy: TcpProxy;
  let key: string;
  let orgId: string;
  const base = () => `/api/public/organizations/${orgId}/data-sources`;
  const get = async (id: string) =>
    DataSource.parse((await bridge.request('GET', `${base()}/${id}`, { key })).body.data);

  beforeAll(async () => {
    proxy = await startTcpProxy(server.port, 'pause');
    bridge = await startBridge(engine, LIFECYCLE_ENV);
    key = (await bridge.newUser()).key;
    orgId = (
      await bridge.request('POST', '/api/public/organizations', { key, body: { name: 'Life' } })
    ).body.data.id;
  });
  afterAll(async () => {
    await bridge?.stop();
    await proxy?.close();
  });

  it('syncs after create (PENDING → SYNCING → SUCCEEDED), shows the real tables, and tracks health through an outage', async () => {
    const created = await bridge.request('POST', base(), {
      key,
      body: {
        dialect: 'POSTGRES',
        displayName: 'Warehouse',
        host: '127.0.0.1',
        port: proxy.port,
        username: 'postgres',
        password: PASSWORD,
        databaseName: 'postgres',
        sslEnabled: false,
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    expect(created.body.data).toMatchObject({
      lastSyncStatus: 'PENDING',
      hasCompletedFirstSync: false,
      lastSyncAttemptAt: null,
      lastHealthStatus: null,
      healthErrorMessage: null,
    });

    // The proxy holds the connection: the sync has started and can't finish.
    const syncing = await until(
      'SYNCING',
      () => get(id),
      (d) => d.lastSyncStatus === 'SYNCING',
    );
    expect(syncing.lastSyncAttemptAt).not.toBeNull();
    expect(syncing.hasCompletedFirstSync).toBe(false);
    expect(syncing.lastSuccessfulSyncAt).toBeNull();
    const before = await bridge.request('GET', `${base()}/${id}/schema`, { key });
    expect(before.body.data).toMatchObject({ readAt: null, tableCount: 0, tables: [] });

    proxy.pass();
    const synced = await until(
      'SUCCEEDED',
      () => get(id),
      (d) => d.lastSyncStatus === 'SUCCEEDED',
    );
    expect(synced.hasCompletedFirstSync).toBe(true);
    expect(synced.lastSuccessfulSyncAt).not.toBeNull();
    expect(synced.syncErrorMessage).toBeNull();

    const schema = await bridge.request('GET', `${base()}/${id}/schema`, { key });
    expect(schema.status).toBe(200);
    const catalog = DataSourceSchema.parse(schema.body.data);
    expect(catalog).toMatchObject({ dataSourceId: id, truncated: false, tableCount: 3 });
    expect(catalog.readAt).not.toBeNull();
    expect(catalog.tables).toEqual([
      {
        schema: 'public',
        name: 'customers',
        kind: 'TABLE',
        columns: [{ name: 'email', type: 'character varying(200)', nullable: false }],
      },
      {
        schema: 'sales',
        name: 'order_totals',
        kind: 'VIEW',
        columns: [
          { name: 'id', type: 'integer', nullable: true },
          { name: 'total', type: 'numeric(10,2)', nullable: true },
        ],
      },
      {
        schema: 'sales',
        name: 'orders',
        kind: 'TABLE',
        columns: [
          { name: 'id', type: 'integer', nullable: false },
          { name: 'note', type: 'text', nullable: true },
          { name: 'total', type: 'numeric(10,2)', nullable: false },
        ],
      },
    ]);
    expect(schema.body.pagination).toEqual({ nextCursor: null, hasMore: false });
    // Keyset pages of tables, each with its own columns.
    const first = await bridge.request('GET', `${base()}/${id}/schema?limit=2`, { key });
    expect(first.body.data.tables.map((t: { name: string }) => t.name)).toEqual([
      'customers',
      'order_totals',
    ]);
    expect(first.body.pagination.hasMore).toBe(true);
    const cursor = first.body.pagination.nextCursor;
    const second = await bridge.request('GET', `${base()}/${id}/schema?limit=2&cursor=${cursor}`, {
      key,
    });
    expect(second.body.data.tables).toEqual([catalog.tables[2]]);
    expect(second.body.pagination).toEqual({ nextCursor: null, hasMore: false });
    expect(second.body.data).toMatchObject({ tableCount: 3, readAt: catalog.readAt });

    const healthy = await until(
      'HEALTHY',
      () => get(id),
      (d) => d.lastHealthStatus === 'HEALTHY',
    );
    expect(healthy.lastHealthyAt).not.toBeNull();
    expect(healthy.healthErrorMessage).toBeNull();

    await server.pause();
    const down = await until(
      'UNHEALTHY',
      () => get(id),
      (d) => d.lastHealthStatus === 'UNHEALTHY',
    );
    expect(down.healthErrorMessage).toEqual(expect.any(String));
    expect(down.healthErrorMessage?.length).toBeGreaterThan(10);
    expect(Date.parse(down.lastHealthCheckAttemptAt ?? '')).toBeGreaterThan(
      Date.parse(down.lastHealthyAt ?? ''),
    );
    // The catalog of the last successful sync stays while syncs fail.
    const failed = await until(
      'FAILED',
      () => get(id),
      (d) => d.lastSyncStatus === 'FAILED',
    );
    expect(failed.syncErrorMessage).toEqual(expect.any(String));
    expect(failed.hasCompletedFirstSync).toBe(true);
    const kept = await bridge.request('GET', `${base()}/${id}/schema`, { key });
    expect(kept.body.data.tableCount).toBe(3);

    await server.resume();
    const back = await until(
      'HEALTHY again',
      () => get(id),
      (d) => d.lastHealthStatus === 'HEALTHY',
    );
    expect(back.healthErrorMessage).toBeNull();
    expect(Date.parse(back.lastHealthyAt ?? '')).toBeGreaterThan(
      Date.parse(down.lastHealthCheckAttemptAt ?? ''),
    );
    // The password never reached a record or a log line.
    expect(JSON.stringify([down, failed])).not.toContain(PASSWORD);
    expect(bridge.logs.join('\n')).not.toContain(PASSWORD);
  }, 90_000);

  it('takes over a sync left SYNCING by a killed process within one interval', async () => {
    proxy.pass();
    const created = await bridge.request('POST', base(), {
      key,
      body: {
        dialect: 'POSTGRES',
        displayName: 'Orphan',
        host: '127.0.0.1',
        port: server.port,
        username: 'postgres',
        sslEnabled: false,
      },
    });
    const id = created.body.data.id as string;
    await until(
      'first sync',
      () => get(id),
      (d) => d.lastSyncStatus === 'SUCCEEDED',
    );
    // What a process killed mid-sync leaves: SYNCING, with a lease taken an hour ago.
    const anHourAgo = new Date(Date.now() - 3_600_000).toISOString();
    await bridge.deps.store.db
      .updateTable('dataSources')
      .set({ lastSyncStatus: 'SYNCING', syncStartedAt: anHourAgo, lastSyncAttemptAt: anHourAgo })
      .where('id', '=', id)
      .execute();
    expect((await get(id)).lastSyncStatus).toBe('SYNCING');
    const retaken = await until(
      'the abandoned sync taken over',
      () => get(id),
      (d) => d.lastSyncStatus === 'SUCCEEDED' && d.lastSyncAttemptAt !== anHourAgo,
      6_000,
    );
    expect(Date.parse(retaken.lastSyncAttemptAt ?? '')).toBeGreaterThan(Date.parse(anHourAgo));
  }, 30_000);
});
