import { DataSource } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type TestBridge } from '../../../test/support/bridge';
import { type Flood, floodServer, PG_HUGE } from '../../../test/support/flood-server';
import { until } from '../../../test/support/wait';

// Health checks and syncs connect as verify does, under a cap on what the server may send:
// a check's 1 MB, a sync's BRIDGE_SYNC_MAX_MB. A stored data source whose server sends
// without end fails both, each naming its own cap, instead of filling the bridge's memory.

const ENV = {
  BRIDGE_BACKGROUND_JOBS: 'true',
  BRIDGE_HEALTH_INTERVAL_S: '2',
  BRIDGE_SYNC_INTERVAL_S: '4',
  BRIDGE_SYNC_TIMEOUT_S: '2',
  BRIDGE_VERIFY_TIMEOUT_MS: '2000',
  BRIDGE_SYNC_MAX_MB: '3',
};

describe('a stored data source whose server sends without end', () => {
  let flood: Flood;
  let bridge: TestBridge;
  beforeAll(async () => {
    flood = await floodServer((socket, pourAll) =>
      socket.once('data', () => pourAll(socket, PG_HUGE)),
    );
    bridge = await startBridge('sqlite', ENV);
  });
  afterAll(async () => {
    await bridge?.stop();
    await flood?.stop();
  });

  it('fails its sync at BRIDGE_SYNC_MAX_MB and its health check at 1 MB', async () => {
    const { key } = await bridge.newUser();
    const orgId = (
      await bridge.request('POST', '/api/public/organizations', { key, body: { name: 'Flood' } })
    ).body.data.id as string;
    const base = `/api/public/organizations/${orgId}/data-sources`;
    const created = await bridge.request('POST', base, {
      key,
      body: {
        dialect: 'POSTGRES',
        displayName: 'Firehose',
        host: '127.0.0.1',
        port: flood.port,
        username: 'postgres',
        password: 'read-cap-secret-pw',
        databaseName: 'postgres',
        sslEnabled: false,
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const get = async () =>
      DataSource.parse((await bridge.request('GET', `${base}/${id}`, { key })).body.data);

    const done = await until(
      'a failed sync and an unhealthy check',
      get,
      (d) => d.lastSyncStatus === 'FAILED' && d.lastHealthStatus === 'UNHEALTHY',
    );
    expect(done.syncErrorMessage).toBe(
      'The server sent more than 3 MB on one connection. Check that the host and port point at a PostgreSQL server.',
    );
    expect(done.healthErrorMessage).toBe(
      'The server sent more than 1 MB on one connection. Check that the host and port point at a PostgreSQL server.',
    );
    // Each connection was cut near its cap, not at the deadline with gigabytes read.
    expect(Math.max(...flood.sent)).toBeLessThan(32 << 20);
    expect(JSON.stringify(done)).not.toContain('read-cap-secret-pw');
  });
});
