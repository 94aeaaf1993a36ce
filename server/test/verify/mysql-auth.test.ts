import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql2 from 'mysql2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type TestBridge } from '../../../test/support/bridge';
import {
  type MysqlAuthPlugin,
  type RogueMysql,
  startRogueMysql,
} from '../../../test/support/rogue-mysql';
import { writeSelfSignedCert } from '../../../test/support/self-signed-cert';
import { MYSQL_AUTH_PLUGINS } from '../../src/verify/mysql-auth';
import { verifyConnection } from '../../src/verify/verify';

// The MySQL client never hands the password to a peer it has not verified: the plugins that
// need the password itself (sha256_password, caching_sha2_password's full authentication) get
// it only over TLS with a verified certificate; mysql_clear_password never.

const options = { timeoutMs: 5000, allowPrivateNetworks: true };
const SECRET = 'mysql-auth-secret-Q7v';

let certDir: string;
let cert: { key: string; cert: string };
const rogues: RogueMysql[] = [];

beforeAll(async () => {
  certDir = await mkdtemp(join(tmpdir(), 'bk-rogue-mysql-'));
  const files = { keyFile: join(certDir, 'key.pem'), certFile: join(certDir, 'cert.pem') };
  await writeSelfSignedCert(files, ['localhost', '127.0.0.1']);
  cert = {
    key: await readFile(files.keyFile, 'utf8'),
    cert: await readFile(files.certFile, 'utf8'),
  };
});

afterAll(async () => {
  await Promise.all(rogues.map((r) => r.close()));
  if (certDir) await rm(certDir, { recursive: true, force: true });
});

async function rogue(plugin: MysqlAuthPlugin, switchTo: MysqlAuthPlugin | undefined, tls: boolean) {
  const server = await startRogueMysql({ plugin, switchTo, ...(tls ? { tls: cert } : {}) });
  rogues.push(server);
  return server;
}

const NEEDS_VERIFIED_TLS = (plugin: string) => ({
  ok: false,
  reason: 'mysql-auth-needs-verified-tls',
  detail: `The MySQL server asked for the password itself (${plugin}); it is sent only over TLS with a verified certificate.`,
  fieldErrors: {
    sslEnabled:
      'The server needs the password itself: give it a certificate from a trusted CA for this host name, or use mysql_native_password for this account.',
  },
  params: { plugin },
});
const CLEARTEXT = {
  ok: false,
  reason: 'mysql-auth-cleartext',
  detail:
    'The MySQL server asked for the password in clear text (mysql_clear_password); it was not sent.',
  fieldErrors: {
    username: 'This account authenticates with mysql_clear_password, which the service never uses.',
  },
  params: { plugin: 'mysql_clear_password' },
};

const CASES: Array<[string, MysqlAuthPlugin, MysqlAuthPlugin | undefined, unknown]> = [
  [
    'sha256_password as the initial plugin',
    'sha256_password',
    undefined,
    NEEDS_VERIFIED_TLS('sha256_password'),
  ],
  [
    'caching_sha2_password full authentication as the initial plugin',
    'caching_sha2_password',
    undefined,
    NEEDS_VERIFIED_TLS('caching_sha2_password'),
  ],
  [
    'an auth switch to sha256_password',
    'mysql_native_password',
    'sha256_password',
    NEEDS_VERIFIED_TLS('sha256_password'),
  ],
  [
    'an auth switch to caching_sha2_password',
    'mysql_native_password',
    'caching_sha2_password',
    NEEDS_VERIFIED_TLS('caching_sha2_password'),
  ],
  [
    'an auth switch to mysql_clear_password',
    'mysql_native_password',
    'mysql_clear_password',
    CLEARTEXT,
  ],
];

const connection = (port: number, tls: boolean) =>
  ({
    dialect: 'MYSQL',
    host: '127.0.0.1',
    port,
    username: 'app',
    password: SECRET,
    sslEnabled: tls,
  }) as const;

describe.each([false, true])(
  'MySQL authentication with TLS %s (certificate not verified)',
  (tls) => {
    it.each(CASES)('keeps the password from %s', async (_name, plugin, switchTo, expected) => {
      const server = await rogue(plugin, switchTo, tls);
      const outcome = await verifyConnection(connection(server.port, tls), options);
      expect(server.connections()).toBe(1);
      expect(server.tlsUsed).toEqual([tls]);
      // Neither in clear text nor encrypted to the server's key, in any packet.
      expect(server.learned).not.toContain(SECRET);
      for (const packet of server.packets) expect(packet.includes(SECRET)).toBe(false);
      expect(outcome).toEqual(expected);
    });
  },
);

describe('MySQL authentication codes over the API', () => {
  let bridge: TestBridge;
  let key: string;
  let orgId: string;

  beforeAll(async () => {
    bridge = await startBridge('sqlite');
    key = (await bridge.newUser()).key;
    orgId = (
      await bridge.request('POST', '/api/public/organizations', { key, body: { name: 'Auth' } })
    ).body.data.id;
  });
  afterAll(async () => {
    await bridge?.stop();
  });

  it('answers mysql_auth_needs_verified_tls on sslEnabled for a full authentication', async () => {
    const server = await rogue('caching_sha2_password', undefined, true);
    const res = await bridge.request(
      'POST',
      `/api/public/organizations/${orgId}/data-sources/verify`,
      {
        key,
        body: connection(server.port, true),
      },
    );
    expect(res.status).toBe(422);
    expect(res.body.error).toEqual({
      title: 'VerificationFailed',
      code: 'mysql_auth_needs_verified_tls',
      detail: NEEDS_VERIFIED_TLS('caching_sha2_password').detail,
      fieldErrors: NEEDS_VERIFIED_TLS('caching_sha2_password').fieldErrors,
      fieldCodes: { sslEnabled: 'mysql_auth_needs_verified_tls' },
      params: { plugin: 'caching_sha2_password' },
    });
    expect(server.learned).not.toContain(SECRET);
  });

  it('answers mysql_auth_cleartext_refused on username for mysql_clear_password', async () => {
    const server = await rogue('mysql_native_password', 'mysql_clear_password', true);
    const res = await bridge.request(
      'POST',
      `/api/public/organizations/${orgId}/data-sources/verify`,
      {
        key,
        body: connection(server.port, true),
      },
    );
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('mysql_auth_cleartext_refused');
    expect(res.body.error.fieldCodes).toEqual({ username: 'mysql_auth_cleartext_refused' });
    expect(server.learned).not.toContain(SECRET);
  });
});

describe('MySQL authentication to a verified peer', () => {
  it('sends the password over TLS whose certificate verifies (chain and host name)', async () => {
    const server = await rogue('caching_sha2_password', undefined, true);
    // The bridge trusts the system's CAs; here the test's CA is given to the same plugins.
    const client = mysql2.createConnection({
      host: 'localhost',
      port: server.port,
      user: 'app',
      password: SECRET,
      ssl: { ca: cert.cert, rejectUnauthorized: false },
      authPlugins: MYSQL_AUTH_PLUGINS as never,
    });
    client.on('error', () => {});
    const error = await new Promise<unknown>((resolve) => {
      client.once('connect', () => resolve(undefined));
      client.once('error', resolve);
    });
    client.destroy();
    expect((error as { errno?: number }).errno).toBe(1045); // the rogue refuses every login
    expect(server.tlsUsed).toEqual([true]);
    expect(server.learned).toContain(SECRET);
  });
});
