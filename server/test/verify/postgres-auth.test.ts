import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RoguePg, startRoguePg } from '../../../test/ops/support';
import { startBridge, type TestBridge } from '../../../test/support/bridge';
import { writeSelfSignedCert } from '../../../test/support/self-signed-cert';
import { guardPasswordAuth } from '../../src/verify/postgres-auth';
import { verifyConnection } from '../../src/verify/verify';

// The PostgreSQL client never hands the password, or its MD5 equivalent, to a peer it has not
// verified: cleartext and md5 password requests are answered only over TLS whose certificate
// verifies. SCRAM-SHA-256 reveals nothing usable and stays allowed (postgres.test.ts logs in
// with it against real clusters).

const options = { timeoutMs: 5000, allowPrivateNetworks: true };
const SECRET = 'pg-auth-secret-K3w';

let certDir: string;
let cert: { key: string; cert: string };
const rogues: RoguePg[] = [];

beforeAll(async () => {
  certDir = await mkdtemp(join(tmpdir(), 'bk-rogue-pg-'));
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

async function rogue(mode: 'password' | 'md5', tls: boolean) {
  const server = await startRoguePg(mode, tls ? { tls: cert } : {});
  rogues.push(server);
  return server;
}

const NEEDS_VERIFIED_TLS = (method: 'password' | 'md5') => ({
  ok: false,
  reason: 'postgres-auth-needs-verified-tls',
  detail: `The PostgreSQL server asked for the password ${
    method === 'md5' ? 'as an MD5 hash' : 'in clear text'
  } (${method}); it is sent only over TLS with a verified certificate.`,
  fieldErrors: {
    sslEnabled:
      'The server asks for the password itself: give it a certificate from a trusted CA for this host name, or use scram-sha-256 for this account.',
  },
  params: { method },
});

const connection = (port: number, tls: boolean, password: string | undefined = SECRET) =>
  ({
    dialect: 'POSTGRES',
    host: '127.0.0.1',
    port,
    username: 'app',
    ...(password === undefined ? {} : { password }),
    sslEnabled: tls,
  }) as const;

describe.each([false, true])(
  'PostgreSQL password requests with TLS %s (certificate not verified)',
  (tls) => {
    it.each(['password', 'md5'] as const)('keeps the password from %s', async (method) => {
      const server = await rogue(method, tls);
      const outcome = await verifyConnection(connection(server.port, tls), options);
      expect(server.connections()).toBe(1);
      expect(server.tlsUsed).toEqual([tls]);
      // Neither the password nor an MD5 hash of it: no password message at all.
      expect(server.passwords).toEqual([]);
      expect(outcome).toEqual(NEEDS_VERIFIED_TLS(method));
    });
  },
);

describe('PostgreSQL password requests without a stored password', () => {
  it('refuses for the peer, not for the missing password', async () => {
    const server = await rogue('password', false);
    const outcome = await verifyConnection(connection(server.port, false, undefined), options);
    expect(server.passwords).toEqual([]);
    expect(outcome).toEqual(NEEDS_VERIFIED_TLS('password'));
  });
});

describe('PostgreSQL authentication codes over the API', () => {
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

  it.each([
    ['password', false],
    ['md5', true],
  ] as const)(
    'answers postgres_auth_needs_verified_tls on sslEnabled for %s (TLS %s)',
    async (method, tls) => {
      const server = await rogue(method, tls);
      const res = await bridge.request(
        'POST',
        `/api/public/organizations/${orgId}/data-sources/verify`,
        { key, body: connection(server.port, tls) },
      );
      expect(res.status).toBe(422);
      expect(res.body.error).toEqual({
        title: 'VerificationFailed',
        code: 'postgres_auth_needs_verified_tls',
        detail: NEEDS_VERIFIED_TLS(method).detail,
        fieldErrors: NEEDS_VERIFIED_TLS(method).fieldErrors,
        fieldCodes: { sslEnabled: 'postgres_auth_needs_verified_tls' },
        params: { method },
      });
      expect(server.passwords).toEqual([]);
      expect(JSON.stringify(res.body)).not.toContain(SECRET);
    },
  );
});

describe('PostgreSQL password requests from a verified peer', () => {
  /** pg as the verify drives it, guarded, but trusting the test's CA. */
  async function connectVerified(port: number) {
    const client = new pg.Client({
      host: 'localhost',
      port,
      user: 'app',
      database: 'app',
      password: SECRET,
      ssl: { ca: cert.cert, rejectUnauthorized: false },
    });
    guardPasswordAuth(client);
    client.on('error', () => {});
    const error = await client.connect().then(
      () => undefined,
      (e: unknown) => e,
    );
    await client.end().catch(() => {});
    return error as { code?: string } | undefined;
  }

  it('sends the password over TLS whose certificate verifies (chain and host name)', async () => {
    const server = await rogue('password', true);
    expect((await connectVerified(server.port))?.code).toBe('28P01'); // the rogue refuses all
    expect(server.tlsUsed).toEqual([true]);
    expect(server.passwords).toEqual([SECRET]);
  });

  it('sends the MD5 hash over TLS whose certificate verifies', async () => {
    const server = await rogue('md5', true);
    expect((await connectVerified(server.port))?.code).toBe('28P01');
    expect(server.passwords).toHaveLength(1);
    expect(server.passwords[0]).toMatch(/^md5[0-9a-f]{32}$/);
  });

  it('refuses when the certificate chains but names another host', async () => {
    const server = await rogue('password', true);
    const client = new pg.Client({
      host: '127.0.0.1',
      port: server.port,
      user: 'app',
      password: SECRET,
      ssl: { ca: cert.cert, rejectUnauthorized: false, servername: 'db.example.com' },
    });
    guardPasswordAuth(client);
    client.on('error', () => {});
    const error = await client.connect().then(
      () => undefined,
      (e: unknown) => e,
    );
    await client.end().catch(() => {});
    expect((error as Error).name).toBe('PostgresAuthRefused');
    expect(server.passwords).toEqual([]);
  });
});
