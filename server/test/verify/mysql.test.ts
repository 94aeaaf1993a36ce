import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../test/support/free-port';
import { type MariaDb, mysqlConnectionOf, startMariaDb } from '../../../test/support/mariadb';
import { expectNoSecret } from '../../../test/support/no-secret';
import { verifyConnection } from '../../src/verify/verify';

const options = { timeoutMs: 5000, allowPrivateNetworks: true };

let tls: MariaDb;
let plain: MariaDb;

beforeAll(async () => {
  [tls, plain] = await Promise.all([startMariaDb({ tls: true }), startMariaDb({ tls: false })]);
});

afterAll(async () => {
  await Promise.all([tls?.stop(), plain?.stop()]);
});

describe('verifyConnection with MySQL (MariaDB)', () => {
  it('succeeds over TLS with the right password (sslEnabled defaults to true)', async () => {
    await expect(verifyConnection(mysqlConnectionOf(tls), options)).resolves.toEqual({ ok: true });
  });

  it('succeeds with the host given as a name (TLS servername)', async () => {
    const outcome = await verifyConnection(
      { ...mysqlConnectionOf(tls), host: 'localhost' },
      options,
    );
    expect(outcome).toEqual({ ok: true });
  });

  it('succeeds without TLS when sslEnabled is false', async () => {
    const outcome = await verifyConnection(
      { ...mysqlConnectionOf(plain), sslEnabled: false },
      options,
    );
    expect(outcome).toEqual({ ok: true });
  });

  it('succeeds without a database: MySQL needs none to connect', async () => {
    const outcome = await verifyConnection(
      { ...mysqlConnectionOf(tls), databaseName: null },
      options,
    );
    expect(outcome).toEqual({ ok: true });
  });

  it('reports sslEnabled when the server does not offer TLS', async () => {
    const outcome = await verifyConnection(
      { ...mysqlConnectionOf(plain), sslEnabled: true },
      options,
    );
    expect(outcome).toEqual({
      ok: false,
      reason: 'ssl-unsupported',
      detail: 'The database server does not accept SSL connections.',
      fieldErrors: { sslEnabled: 'The server does not accept SSL connections.' },
    });
    expectNoSecret(outcome, plain.password);
  });

  it('reports username and password for a wrong password', async () => {
    const outcome = await verifyConnection(
      { ...mysqlConnectionOf(tls), password: 'wrong-secret-1' },
      options,
    );
    expect(outcome).toEqual({
      ok: false,
      reason: '28000',
      detail: 'The database rejected the username or password.',
      fieldErrors: { username: 'Authentication failed.', password: 'Authentication failed.' },
    });
    expectNoSecret(outcome, 'wrong-secret-1', tls.password);
  });

  it('reports username and password for an unknown user', async () => {
    const outcome = await verifyConnection(
      { ...mysqlConnectionOf(plain), sslEnabled: false, username: 'nobody' },
      options,
    );
    expect(outcome).toMatchObject({ ok: false, reason: '28000' });
    expect(Object.keys(outcome.ok ? {} : outcome.fieldErrors).sort()).toEqual([
      'password',
      'username',
    ]);
  });

  it('reports username and password when the account needs a password and none is given', async () => {
    const { password: _omitted, ...withoutPassword } = mysqlConnectionOf(tls);
    const outcome = await verifyConnection(withoutPassword, options);
    expect(outcome).toMatchObject({ ok: false, reason: 'no-password' });
    expect(outcome.ok ? {} : outcome.fieldErrors).toEqual({
      username: 'Authentication failed.',
      password: 'A password is required.',
    });
  });

  it('reports databaseName for an unknown database (an account with global privileges)', async () => {
    const password = 'global-pw-4Tq';
    await tls.admin(`CREATE USER IF NOT EXISTS 'bk_global'@'%' IDENTIFIED BY '${password}'`);
    await tls.admin(`GRANT SELECT ON *.* TO 'bk_global'@'%'`);
    const outcome = await verifyConnection(
      { ...mysqlConnectionOf(tls), username: 'bk_global', password, databaseName: 'no_such_db' },
      options,
    );
    expect(outcome).toEqual({
      ok: false,
      reason: '3D000',
      detail: 'The database does not exist.',
      fieldErrors: { databaseName: 'The database was not found.' },
    });
  });

  it('reports databaseName for an unknown database (an account limited to its own)', async () => {
    // MySQL won't tell such an account whether the database exists: 1044, access denied.
    const outcome = await verifyConnection(
      { ...mysqlConnectionOf(tls), databaseName: 'no_such_db' },
      options,
    );
    expect(outcome).toEqual({
      ok: false,
      reason: '42501',
      detail: 'The user may not use this database.',
      fieldErrors: { databaseName: 'The database was not found, or this user may not use it.' },
    });
    expectNoSecret(outcome, tls.password);
  });

  it('reports port when the connection is refused', async () => {
    const port = await freePort();
    const outcome = await verifyConnection({ ...mysqlConnectionOf(tls), port }, options);
    expect(outcome).toEqual({
      ok: false,
      reason: 'ECONNREFUSED',
      detail: `The connection was refused on port ${port}.`,
      fieldErrors: { port: 'The connection was refused on this port.' },
      params: { port },
    });
  });

  it('connects to port 3306 when none is given', async () => {
    // 127.0.0.2: loopback, but not where the machine's own MariaDB listens, so 3306 refuses.
    const { port: _omitted, ...withoutPort } = mysqlConnectionOf(plain);
    const outcome = await verifyConnection({ ...withoutPort, host: '127.0.0.2' }, options);
    expect(outcome).toMatchObject({
      ok: false,
      reason: 'ECONNREFUSED',
      detail: 'The connection was refused on port 3306.',
    });
  });

  it('reports host when the name does not resolve', async () => {
    const outcome = await verifyConnection(
      { ...mysqlConnectionOf(tls), host: 'nope.invalid' },
      options,
    );
    expect(outcome).toEqual({
      ok: false,
      reason: expect.stringMatching(/^(ENOTFOUND|EAI_AGAIN)$/),
      detail: 'The database host could not be resolved.',
      fieldErrors: { host: 'The hostname could not be resolved.' },
    });
  });

  describe('against servers that are not MySQL, or never answer', () => {
    let http: Server;
    let silent: Server;
    const sockets: Socket[] = [];
    const listen = async (server: Server) => {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return (server.address() as { port: number }).port;
    };
    let httpPort: number;
    let silentPort: number;
    beforeAll(async () => {
      http = createServer((socket) => {
        socket.resume();
        socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      });
      silent = createServer((socket) => {
        sockets.push(socket);
        socket.resume();
      });
      [httpPort, silentPort] = await Promise.all([listen(http), listen(silent)]);
    });
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await Promise.all(
        [http, silent].map((s) => new Promise((resolve) => s.close(() => resolve(undefined)))),
      );
    });

    it('reports host, naming MySQL, when the server closes without a handshake', async () => {
      const port = httpPort;
      const outcome = await verifyConnection({ ...mysqlConnectionOf(tls), port }, options);
      expect(outcome).toEqual({
        ok: false,
        reason: 'connection-closed',
        detail: 'The server closed the connection unexpectedly.',
        fieldErrors: {
          host: 'The server closed the connection. Check that this is a MySQL server.',
        },
      });
    });

    it('leaves no socket or timer behind after failures, successes and timeouts', async () => {
      const port = silentPort;
      const count = () =>
        process.getActiveResourcesInfo().filter((n) => n === 'TCPSocketWrap' || n === 'Timeout')
          .length;
      await verifyConnection(mysqlConnectionOf(tls), options); // warm up TLS and mysql2
      await new Promise((resolve) => setTimeout(resolve, 50));
      const before = count();
      const reasons = new Set<string>();
      for (let i = 0; i < 30; i++) {
        const body =
          i % 3 === 0
            ? mysqlConnectionOf(tls)
            : i % 3 === 1
              ? { ...mysqlConnectionOf(tls), password: 'wrong-pw' }
              : { ...mysqlConnectionOf(tls), port };
        const outcome = await verifyConnection(body, {
          ...options,
          timeoutMs: i % 3 === 2 ? 50 : 5000,
        });
        reasons.add(outcome.ok ? 'ok' : outcome.reason);
      }
      expect([...reasons].sort()).toEqual(['28000', 'ok', 'timeout']);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(count()).toBeLessThanOrEqual(before);
    });

    it('times out on host, naming the service address, within the deadline', async () => {
      const port = silentPort;
      const started = performance.now();
      const outcome = await verifyConnection(
        { ...mysqlConnectionOf(tls), port },
        { timeoutMs: 400, allowPrivateNetworks: true, serviceIp: '203.0.113.7' },
      );
      expect(performance.now() - started).toBeLessThan(400 + 200);
      expect(outcome).toMatchObject({ ok: false, reason: 'timeout' });
      expect(outcome.ok ? {} : outcome.fieldErrors).toEqual({
        host: expect.stringContaining('allow 203.0.113.7 in the database firewall'),
      });
    });
  });
});
