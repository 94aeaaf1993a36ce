import { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeThrowawayCert, type TlsCert } from '../../../test/e2e/support/tls-front';
import {
  type Flood,
  floodServer,
  MB,
  MYSQL_HUGE,
  PG_HUGE,
} from '../../../test/support/flood-server';
import { withConnection } from '../../src/verify/connection';
import { verifyConnection } from '../../src/verify/verify';

// Without a cap a verify held everything such a server sent until its deadline: 1 GB in 3 s
// over loopback, measured before the cap.

const DEADLINE_MS = 10_000;

const pgBody = (port: number, sslEnabled: boolean) =>
  ({
    dialect: 'POSTGRES',
    host: '127.0.0.1',
    port,
    username: 'u',
    password: 'flood-secret-pw',
    sslEnabled,
  }) as const;

const options = { timeoutMs: DEADLINE_MS, allowPrivateNetworks: true };

function expectOverRead(outcome: unknown, product: string) {
  expect(outcome).toEqual({
    ok: false,
    reason: 'too-much-data',
    detail: `The server sent more than 1 MB on one connection. Check that the host and port point at a ${product} server.`,
    fieldErrors: { host: 'The server sent more than 1 MB.' },
    params: { limit: '1 MB' },
  });
  expect(JSON.stringify(outcome)).not.toContain('flood-secret-pw');
}

describe('a server that sends without end', () => {
  let cert: TlsCert;
  let pgPlain: Flood;
  let pgTls: Flood;
  let mysql: Flood;
  beforeAll(async () => {
    cert = await makeThrowawayCert(['127.0.0.1']);
    pgPlain = await floodServer((socket, pourAll) =>
      socket.once('data', () => pourAll(socket, PG_HUGE)),
    );
    // Accepts the SSLRequest ('S'), speaks TLS, then floods inside it.
    pgTls = await floodServer((socket, pourAll) =>
      socket.once('data', () => {
        socket.write('S');
        const secure = new TLSSocket(socket, { isServer: true, cert: cert.cert, key: cert.key });
        secure.on('error', () => {});
        secure.once('data', () => pourAll(secure, PG_HUGE));
      }),
    );
    // MySQL servers speak first.
    mysql = await floodServer((socket, pourAll) => pourAll(socket, MYSQL_HUGE));
  });
  afterAll(async () => {
    await Promise.all([pgPlain?.stop(), pgTls?.stop(), mysql?.stop()]);
  });

  /** Verifies against `flood`: refused at the cap, well before the deadline, the socket closed. */
  async function expectCutOff(
    flood: Flood,
    body: Parameters<typeof verifyConnection>[0],
    product: string,
    maxSentBytes: number,
  ) {
    const started = performance.now();
    const outcome = await verifyConnection(body, options);
    expect(performance.now() - started).toBeLessThan(DEADLINE_MS / 2);
    expectOverRead(outcome, product);
    await flood.allClosed();
    // What the socket took: the cap, the chunk in flight and the kernel's buffers, not gigabytes.
    expect(flood.sent.at(-1)).toBeLessThan(maxSentBytes);
  }

  it('fails a PostgreSQL verify at the cap, long before the deadline, and closes the connection', async () => {
    await expectCutOff(pgPlain, pgBody(pgPlain.port, false), 'PostgreSQL', 16 * MB);
  });

  it('counts the bytes TLS reads too (its raw socket emits no data events)', async () => {
    await expectCutOff(pgTls, pgBody(pgTls.port, true), 'PostgreSQL', 64 * MB);
  });

  it('fails a MySQL verify the same way', async () => {
    const body = {
      dialect: 'MYSQL',
      host: '127.0.0.1',
      port: mysql.port,
      username: 'u',
      password: 'flood-secret-pw',
      sslEnabled: false,
    } as const;
    await expectCutOff(mysql, body, 'MySQL', 16 * MB);
  });
});

describe('the read cap on a real PostgreSQL', () => {
  const local = {
    dialect: 'POSTGRES',
    host: '127.0.0.1',
    port: 5432,
    username: 'postgres',
    databaseName: 'test',
    sslEnabled: false,
  } as const;
  const readText = (bytes: number) =>
    withConnection(local, options, (connection) =>
      connection.query(`select repeat('x', ${bytes}) as text`),
    );

  it('lets a check read what it needs, and stops work that reads more than its cap', async () => {
    const small = await readText(100_000);
    expect(small.ok && (small.value[0] as { text: string }).text.length).toBe(100_000);
    const big = await readText(2 * MB);
    expect(big).toMatchObject({ ok: false, reason: 'too-much-data', params: { limit: '1 MB' } });
  });

  it('takes a bigger cap where the work needs one (a sync reads a catalog)', async () => {
    const outcome = await withConnection(
      local,
      { ...options, maxReadBytes: 8 * MB },
      (connection) => connection.query(`select repeat('x', ${2 * MB}) as text`),
    );
    expect(outcome.ok && (outcome.value[0] as { text: string }).text.length).toBe(2 * MB);
  });
});
