import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../test/support/free-port';
import { expectNoSecret } from '../../../test/support/no-secret';
import { connectionOf, type PgCluster, startPgCluster } from '../../../test/support/pg-cluster';
import { verifyConnection } from '../../src/verify/verify';

const options = { timeoutMs: 5000, allowPrivateNetworks: true };

let tls: PgCluster;
let plain: PgCluster;

beforeAll(async () => {
  [tls, plain] = await Promise.all([
    startPgCluster({ ssl: true, auth: 'scram-sha-256' }),
    startPgCluster({ ssl: false, auth: 'scram-sha-256' }),
  ]);
});

afterAll(async () => {
  await Promise.all([tls?.stop(), plain?.stop()]);
});

describe('verifyConnection with PostgreSQL', () => {
  it('succeeds over TLS with the right password (sslEnabled defaults to true)', async () => {
    await expect(verifyConnection(connectionOf(tls), options)).resolves.toEqual({ ok: true });
  });

  it('succeeds with the host given as a name (TLS servername)', async () => {
    const outcome = await verifyConnection({ ...connectionOf(tls), host: 'localhost' }, options);
    expect(outcome).toEqual({ ok: true });
  });

  it('succeeds without SSL when sslEnabled is false', async () => {
    const outcome = await verifyConnection({ ...connectionOf(plain), sslEnabled: false }, options);
    expect(outcome).toEqual({ ok: true });
  });

  it('reports sslEnabled when the server does not accept SSL', async () => {
    const outcome = await verifyConnection({ ...connectionOf(plain), sslEnabled: true }, options);
    expect(outcome).toEqual({
      ok: false,
      reason: 'ssl-unsupported',
      detail: expect.any(String),
      fieldErrors: { sslEnabled: expect.any(String) },
    });
    expectNoSecret(outcome, plain.password);
  });

  it('reports username and password for a wrong password', async () => {
    const outcome = await verifyConnection(
      { ...connectionOf(tls), password: 'wrong-secret-1' },
      options,
    );
    expect(outcome).toEqual({
      ok: false,
      reason: '28P01',
      detail: expect.any(String),
      fieldErrors: { username: expect.any(String), password: expect.any(String) },
    });
    expectNoSecret(outcome, 'wrong-secret-1', tls.password);
  });

  it('reports username and password for an unknown user', async () => {
    const outcome = await verifyConnection(
      { ...connectionOf(plain), sslEnabled: false, username: 'nobody' },
      options,
    );
    expect(outcome).toMatchObject({ ok: false, reason: '28P01' });
    expect(Object.keys(outcome.ok ? {} : outcome.fieldErrors).sort()).toEqual([
      'password',
      'username',
    ]);
  });

  it('reports username and password when the server wants a password and none is given', async () => {
    const { password: _omitted, ...withoutPassword } = connectionOf(tls);
    const outcome = await verifyConnection(withoutPassword, options);
    expect(outcome).toMatchObject({ ok: false, reason: 'no-password' });
    expect(Object.keys(outcome.ok ? {} : outcome.fieldErrors).sort()).toEqual([
      'password',
      'username',
    ]);
  });

  it('reports databaseName for an unknown database', async () => {
    const outcome = await verifyConnection(
      { ...connectionOf(tls), databaseName: 'no_such_db' },
      options,
    );
    expect(outcome).toEqual({
      ok: false,
      reason: '3D000',
      detail: expect.any(String),
      fieldErrors: { databaseName: expect.any(String) },
    });
    expectNoSecret(outcome, tls.password);
  });

  it('defaults the database to the username', async () => {
    const outcome = await verifyConnection({ ...connectionOf(tls), databaseName: null }, options);
    // The role exists, a database named after it does not.
    expect(outcome).toMatchObject({ ok: false, reason: '3D000' });
  });

  it('reports port when the connection is refused', async () => {
    const port = await freePort();
    const outcome = await verifyConnection({ ...connectionOf(tls), port }, options);
    expect(outcome).toEqual({
      ok: false,
      reason: 'ECONNREFUSED',
      detail: expect.any(String),
      fieldErrors: { port: expect.any(String) },
      params: { port },
    });
    expectNoSecret(outcome, tls.password);
  });

  it('reports host when the name does not resolve', async () => {
    const outcome = await verifyConnection({ ...connectionOf(tls), host: 'nope.invalid' }, options);
    expect(outcome).toEqual({
      ok: false,
      reason: expect.stringMatching(/^(ENOTFOUND|EAI_AGAIN)$/),
      detail: expect.any(String),
      fieldErrors: { host: expect.any(String) },
    });
    expectNoSecret(outcome, tls.password);
  });

  describe('against a server that is not PostgreSQL', () => {
    let server: Server;
    let port: number;
    beforeAll(async () => {
      server = createServer((socket: Socket) => {
        socket.resume(); // read to EOF so the socket closes when the client does
        socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('reports host without sslEnabled when the SSL answer is not N', async () => {
      const outcome = await verifyConnection({ ...connectionOf(tls), port }, options);
      expect(outcome).toMatchObject({ ok: false });
      expect(Object.keys(outcome.ok ? {} : outcome.fieldErrors)).toEqual(['host']);
    });
  });
});
