import { DataSource, DataSourceSchema } from '@bridgekit/contract';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type TestBridge } from '../../../test/support/bridge';
import { type PgServer, startPgServer } from '../../../test/support/pg-server';
import { type Sshd, startSshd } from '../../../test/support/sshd';
import { until } from '../../../test/support/wait';

// Health checks and syncs take verify's connection path, SSH tunnel included: a source behind
// a bastion is checked and synced through it, and a wrong SSH password is what the check says.
let server: PgServer;
let sshd: Sshd;
let bridge: TestBridge;
let key: string;
let orgId: string;

beforeAll(async () => {
  [server, sshd] = await Promise.all([startPgServer(), startSshd()]);
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  await client.query('create table public.behind_the_bastion (id integer primary key)');
  await client.end();
  // Background jobs on for the requested syncs; scheduled work far apart, so the test's own
  // requests are the only checks.
  bridge = await startBridge('sqlite', {
    BRIDGE_BACKGROUND_JOBS: 'true',
    BRIDGE_HEALTH_INTERVAL_S: '3600',
    BRIDGE_SYNC_INTERVAL_S: '3600',
  });
  key = (await bridge.newUser()).key;
  orgId = (
    await bridge.request('POST', '/api/public/organizations', { key, body: { name: 'Bastion' } })
  ).body.data.id;
}, 120_000);

afterAll(async () => {
  await bridge?.stop();
  await Promise.all([server?.destroy(), sshd?.stop()]);
});

describe('health checks and syncs through an SSH tunnel', () => {
  const base = () => `/api/public/organizations/${orgId}/data-sources`;
  const get = async (id: string) =>
    DataSource.parse((await bridge.request('GET', `${base()}/${id}`, { key })).body.data);
  const check = async (id: string) => {
    const res = await bridge.request('POST', `${base()}/${id}/health-check`, { key });
    expect(res.status).toBe(200);
    return DataSource.parse(res.body.data);
  };

  it('checks and syncs through the bastion, and names a refused SSH login', async () => {
    const created = await bridge.request('POST', base(), {
      key,
      body: {
        dialect: 'POSTGRES',
        displayName: 'Behind a bastion',
        // The database as the SSH host sees it: its own loopback.
        host: '127.0.0.1',
        port: server.port,
        username: 'postgres',
        databaseName: 'postgres',
        sslEnabled: false,
        sshEnabled: true,
        sshHost: sshd.host,
        sshPort: sshd.port,
        sshUsername: sshd.passwordUser.username,
        sshPassword: sshd.passwordUser.password,
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;

    const healthy = await check(id);
    expect(healthy).toMatchObject({ lastHealthStatus: 'HEALTHY', healthErrorMessage: null });
    const synced = await until(
      'SUCCEEDED',
      () => get(id),
      (d) => d.lastSyncStatus === 'SUCCEEDED',
    );
    expect(synced.syncErrorMessage).toBeNull();
    const schema = DataSourceSchema.parse(
      (await bridge.request('GET', `${base()}/${id}/schema`, { key })).body.data,
    );
    expect(schema.tables.map((t) => `${t.schema}.${t.name}`)).toEqual([
      'public.behind_the_bastion',
    ]);

    // Only the SSH login is wrong now: the check fails there, in verify's words.
    const wrong = 'not-the-ssh-password';
    const patched = await bridge.request('PATCH', `${base()}/${id}`, {
      key,
      body: { sshPassword: wrong },
    });
    expect(patched.status).toBe(200);
    const refused = await check(id);
    expect(refused.lastHealthStatus).toBe('UNHEALTHY');
    expect(refused.healthErrorMessage).toMatch(/SSH/);
    expect(refused.lastHealthyAt).toBe(healthy.lastHealthyAt);

    await bridge.request('PATCH', `${base()}/${id}`, {
      key,
      body: { sshPassword: sshd.passwordUser.password },
    });
    expect(await check(id)).toMatchObject({
      lastHealthStatus: 'HEALTHY',
      healthErrorMessage: null,
    });
    const secrets = [wrong, sshd.passwordUser.password];
    const said = JSON.stringify([healthy, synced, refused]) + bridge.logs.join('\n');
    for (const secret of secrets) expect(said).not.toContain(secret);
  }, 90_000);
});
