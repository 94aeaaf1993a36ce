import type { AddressInfo } from 'node:net';
import ssh2 from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RoguePg, startRoguePg } from '../../../test/ops/support';
import { startBridge, type TestBridge } from '../../../test/support/bridge';
import { freePort } from '../../../test/support/free-port';
import { type RogueMysql, startRogueMysql } from '../../../test/support/rogue-mysql';
import { until } from '../../../test/support/wait';
import { expectError } from './support';

// Stored secrets never follow a changed target: a PATCH that moves where the database (or SSH)
// connection goes drops the stored secrets for it, unless the same request supplies them again.
// Without that, an ADMIN who can only see `storedSecrets` could move the host to a server of
// theirs and have the bridge's sync or health check hand it the password.

const DB_SECRET = 'db-secret-moved-Zq1';
const SSH_SECRET = 'ssh-secret-moved-Hw4';

/** An SSH server that records the passwords it is offered and refuses them all. */
async function startRogueSshd() {
  const passwords: string[] = [];
  const server = new ssh2.Server(
    { hostKeys: [ssh2.utils.generateKeyPairSync('ed25519').private] },
    (client) => {
      client.on('error', () => {});
      client.on('authentication', (ctx) => {
        if (ctx.method === 'password') passwords.push(ctx.password);
        ctx.reject(['password', 'publickey']);
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    passwords,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let bridge: TestBridge;
let roguePg: RoguePg;
let rogueMysql: RogueMysql;
let rogueSshd: Awaited<ReturnType<typeof startRogueSshd>>;
let key: string;
let orgId: string;
let closedPort: number;

beforeAll(async () => {
  [roguePg, rogueMysql, rogueSshd, closedPort] = await Promise.all([
    startRoguePg('password'),
    startRogueMysql({ plugin: 'mysql_native_password' }),
    startRogueSshd(),
    freePort(),
  ]);
  // Background jobs on: the PATCH's own sync must not carry the secret either. Scheduled work
  // far apart, so the test's requests are the only checks.
  bridge = await startBridge('sqlite', {
    BRIDGE_BACKGROUND_JOBS: 'true',
    BRIDGE_HEALTH_INTERVAL_S: '3600',
    BRIDGE_SYNC_INTERVAL_S: '3600',
  });
  key = (await bridge.newUser()).key;
  orgId = (
    await bridge.request('POST', '/api/public/organizations', { key, body: { name: 'Moved' } })
  ).body.data.id;
}, 60_000);

afterAll(async () => {
  await bridge?.stop();
  await Promise.all([roguePg?.close(), rogueMysql?.close(), rogueSshd?.close()]);
});

const base = () => `/api/public/organizations/${orgId}/data-sources`;

async function create(body: Record<string, unknown>) {
  const res = await bridge.request('POST', base(), {
    key,
    body: {
      displayName: 'Moved',
      dialect: 'POSTGRES',
      host: 'localhost',
      port: closedPort,
      username: 'app',
      password: DB_SECRET,
      sslEnabled: false,
      ...body,
    },
  });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; storedSecrets: string[] };
}
const patch = (id: string, body: Record<string, unknown>) =>
  bridge.request('PATCH', `${base()}/${id}`, { key, body });
const get = async (id: string) =>
  (await bridge.request('GET', `${base()}/${id}`, { key })).body.data;
/** Waits for the sync the PATCH requested to have run. */
const synced = (id: string) =>
  until(
    'the sync after the PATCH',
    () => get(id),
    (d) => d.lastSyncStatus === 'FAILED' || d.lastSyncStatus === 'SUCCEEDED',
  );

const ssh = () => ({
  sshEnabled: true,
  sshHost: '127.0.0.1',
  sshPort: closedPort,
  sshUsername: 'tunnel',
  sshPassword: SSH_SECRET,
  sshPrivateKeyPassphrase: 'passphrase-moved',
});
const ALL = ['password', 'sshPassword', 'sshPrivateKeyPassphrase'];

describe('which changes drop which stored secrets', () => {
  it.each([
    ['host', { host: 'elsewhere.example.com' }, ['sshPassword', 'sshPrivateKeyPassphrase']],
    ['port', { port: 6543 }, ['sshPassword', 'sshPrivateKeyPassphrase']],
    ['sslEnabled turned off', { sslEnabled: false }, ['sshPassword', 'sshPrivateKeyPassphrase']],
    ['sshEnabled turned off', { sshEnabled: false }, ['sshPassword', 'sshPrivateKeyPassphrase']],
    ['the host, with a new password', { host: 'b.example.com', password: 'new-pw' }, ALL],
    [
      'sshHost, with a new SSH password',
      { sshHost: 'bastion2.example.com', sshPassword: 'n' },
      ['sshPassword'],
    ],
    ['sshPort, with a new SSH password', { sshPort: 2200, sshPassword: 'n' }, ['sshPassword']],
    [
      'sshUsername, with a new SSH password',
      { sshUsername: 'other', sshPassword: 'n' },
      ['password', 'sshPassword'],
    ],
    ['databaseName and username', { databaseName: 'other', username: 'other' }, ALL],
    ['the same host in other letters', { host: 'LocalHost' }, ALL],
    ['sslEnabled turned on', { sslEnabled: true }, ALL],
  ])('%s', async (_name, body, kept) => {
    // TLS on at first, except where the case turns it on.
    const sslEnabled = (body as { sslEnabled?: boolean }).sslEnabled !== true;
    const created = await create({ ...ssh(), sslEnabled });
    expect(created.storedSecrets).toEqual(ALL);
    const res = await patch(created.id, body);
    expect(res.status).toBe(200);
    expect(res.body.data.storedSecrets).toEqual(kept);
    expect((await get(created.id)).storedSecrets).toEqual(kept);
  });

  it('counts the dialect’s default port as the port it is', async () => {
    const created = await create({ port: undefined });
    const res = await patch(created.id, { port: 5432 });
    expect(res.body.data.storedSecrets).toEqual(['password']);
  });

  it('refuses an SSH move that leaves the tunnel without a secret, changing nothing', async () => {
    const created = await create(ssh());
    const res = await patch(created.id, { sshHost: 'bastion2.example.com' });
    expectError(res, 400, 'ValidationError', 'data_source_incomplete');
    expect(res.body.error.fieldErrors).toEqual({
      sshPassword:
        'The SSH server or username changed, so the stored SSH password and key no longer apply: send one again',
    });
    expect(res.body.error.fieldCodes).toEqual({ sshPassword: 'ssh_secret_required' });
    const after = await get(created.id);
    expect(after.sshHost).toBe('127.0.0.1');
    expect(after.storedSecrets).toEqual(ALL);
  });
});

describe('a moved data source never hands the stored secret to the new target', () => {
  it('PostgreSQL: the PATCH’s sync and a health check send no password', async () => {
    const created = await create({});
    const res = await patch(created.id, { port: roguePg.port });
    expect(res.body.data.storedSecrets).toEqual([]);
    await synced(created.id);
    const checked = await bridge.request('POST', `${base()}/${created.id}/health-check`, { key });
    expect(checked.status).toBe(200);
    expect(checked.body.data.lastHealthStatus).toBe('UNHEALTHY');
    // The rogue was reached and asked for the password in clear text; it got none.
    expect(roguePg.connections()).toBeGreaterThanOrEqual(2);
    expect(roguePg.passwords).toEqual([]);

    // Even a password given with the move goes in clear text only to a verified peer.
    await patch(created.id, { password: 'chosen-with-the-move' });
    const again = await bridge.request('POST', `${base()}/${created.id}/health-check`, { key });
    expect(again.body.data.lastHealthStatus).toBe('UNHEALTHY');
    expect(roguePg.passwords).toEqual([]);
  });

  it('MySQL: the PATCH’s sync and a health check answer the challenge without a password', async () => {
    const created = await create({ dialect: 'MYSQL' });
    const res = await patch(created.id, { port: rogueMysql.port });
    expect(res.body.data.storedSecrets).toEqual([]);
    await synced(created.id);
    await bridge.request('POST', `${base()}/${created.id}/health-check`, { key });
    expect(rogueMysql.authResponses.length).toBeGreaterThanOrEqual(2);
    // With the password, mysql_native_password's answer is a 20-byte hash of it: here, empty.
    for (const auth of rogueMysql.authResponses) expect(auth.length).toBe(0);
    expect(rogueMysql.learned).not.toContain(DB_SECRET);
  });

  it('SSH: moving sshPort to another server needs a new SSH password; the old one never goes', async () => {
    const created = await create(ssh());
    const refused = await patch(created.id, { sshPort: rogueSshd.port });
    expect(refused.status).toBe(400);
    const moved = await patch(created.id, { sshPort: rogueSshd.port, sshPassword: 'their-own' });
    expect(moved.status).toBe(200);
    expect(moved.body.data.storedSecrets).toEqual(['sshPassword']);
    await synced(created.id);
    await bridge.request('POST', `${base()}/${created.id}/health-check`, { key });
    expect(rogueSshd.passwords.length).toBeGreaterThanOrEqual(2);
    expect(new Set(rogueSshd.passwords)).toEqual(new Set(['their-own']));
  });
});
