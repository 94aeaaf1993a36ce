import net from 'node:net';
import os from 'node:os';
import SQLite from 'better-sqlite3';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../test/support/free-port';
import { startTcpProxy, type TcpProxy } from '../../../test/support/tcp-proxy';
import { faultError, faultOf, unavailableError } from '../../src/faults';
import { openStore, type Store } from '../../src/store/db';

const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The error `promise` rejects with (fails the test if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

/** A TCP server that accepts connections and never answers: a hung dependency. */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('faultOf: real failures of the libraries the bridge depends on', () => {
  let silent: Awaited<ReturnType<typeof silentServer>>;
  beforeAll(async () => {
    silent = await silentServer();
  });
  afterAll(() => silent.close());

  it('PostgreSQL refusing connections: the store, unavailable', async () => {
    const pool = new pg.Pool({ port: await freePort(), host: '127.0.0.1', user: 'x' });
    const err = await rejection(pool.query('select 1'));
    await pool.end();
    expect(faultOf(err)).toEqual({ dependency: 'store', kind: 'unavailable' });
  });

  it('PostgreSQL accepting but never answering: the store, timed out', async () => {
    const pool = new pg.Pool({
      port: silent.port,
      host: '127.0.0.1',
      user: 'x',
      connectionTimeoutMillis: 200,
    });
    const err = await rejection(pool.query('select 1'));
    await pool.end();
    expect(faultOf(err)).toEqual({ dependency: 'store', kind: 'timeout' });
  });

  it('a statement over its server-side timeout: the store, timed out', async () => {
    const client = new pg.Client({ connectionString: PG_URL, statement_timeout: 50 });
    await client.connect();
    const err = await rejection(client.query('select pg_sleep(1)'));
    await client.end();
    expect((err as { code?: string }).code).toBe('57014');
    expect(faultOf(err)).toEqual({ dependency: 'store', kind: 'timeout' });
  });

  it('Redis refusing connections (no offline queue): Redis, unavailable', async () => {
    const redis = new Redis(await freePort(), '127.0.0.1', {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      lazyConnect: false,
    });
    redis.on('error', () => {});
    const err = await rejection(redis.set('k', '1'));
    redis.disconnect();
    expect(faultOf(err)).toEqual({ dependency: 'redis', kind: 'unavailable' });
  });

  it('Redis accepting but never answering a command: Redis, timed out', async () => {
    const redis = new Redis(silent.port, '127.0.0.1', {
      commandTimeout: 100,
      enableReadyCheck: false,
      maxRetriesPerRequest: 0,
    });
    redis.on('error', () => {});
    await new Promise((resolve) => redis.once('connect', resolve));
    const err = await rejection(redis.set('k', '1'));
    redis.disconnect();
    expect(faultOf(err)).toEqual({ dependency: 'redis', kind: 'timeout' });
  });

  it('leaves a bug a bug: a SQL error, a Redis usage error, a plain Error', async () => {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    const syntax = await rejection(client.query('selec 1'));
    await client.end();
    const redis = new Redis({ host: '127.0.0.1', port: 6379, lazyConnect: true });
    const usage = await rejection(redis.call('get'));
    redis.disconnect();
    expect((usage as Error).name).toBe('ReplyError');
    for (const err of [syntax, usage, new Error('boom'), new TypeError('x is undefined'), null]) {
      expect(faultOf(err)).toBeUndefined();
      expect(unavailableError(err)).toBeUndefined();
    }
  });

  it('reads SQLite failures by their primary code, extended ones included', () => {
    // better-sqlite3's own error class, as it throws them (SQLITE_FULL itself: see the disk-full case).
    const sqlite = (code: string) => new SQLite.SqliteError('failed', code);
    expect(faultOf(sqlite('SQLITE_FULL'))).toEqual({ dependency: 'store', kind: 'full' });
    expect(faultOf(sqlite('SQLITE_IOERR_WRITE'))).toEqual({
      dependency: 'store',
      kind: 'unavailable',
    });
    expect(faultOf(sqlite('SQLITE_BUSY_SNAPSHOT'))).toEqual({
      dependency: 'store',
      kind: 'timeout',
    });
    expect(faultOf(sqlite('SQLITE_CONSTRAINT_UNIQUE'))).toBeUndefined();
    expect(faultOf(sqlite('SQLITE_ERROR'))).toBeUndefined();
  });
});

describe('faultError: what a client gets', () => {
  it.each([
    [{ dependency: 'store', kind: 'unavailable' }, 'store_unavailable', '2'],
    [{ dependency: 'store', kind: 'timeout' }, 'store_unavailable', '2'],
    [{ dependency: 'store', kind: 'full' }, 'store_full', '30'],
    [{ dependency: 'redis', kind: 'unavailable' }, 'redis_unavailable', '2'],
    [{ dependency: 'redis', kind: 'timeout' }, 'redis_unavailable', '2'],
  ] as const)('%o → 503 %s, Retry-After %s', (fault, code, retryAfter) => {
    const err = faultError(fault);
    expect(err.status).toBe(503);
    expect(err.title).toBe('ServiceUnavailable');
    expect(err.headers).toEqual({ 'Retry-After': retryAfter });
    expect(err.toBody().error).toMatchObject({
      code,
      params: { dependency: fault.dependency, fault: fault.kind, retryAfter: Number(retryAfter) },
    });
  });
});

describe('PostgreSQL statement timeout (client-side) through a proxy that stops answering', () => {
  let proxy: TcpProxy;
  let store: Store;

  beforeAll(async () => {
    const url = new URL(PG_URL);
    proxy = await startTcpProxy(Number(url.port || 5432));
    url.port = String(proxy.port);
    store = openStore({
      databaseUrl: url.toString(),
      dataDir: os.tmpdir(),
      poolSize: 1,
      pgTimeouts: { connectMs: 300, statementMs: 300 },
    });
  });
  afterAll(async () => {
    await store?.close();
    await proxy?.close();
  });

  it('fails the statement in time, drops its connection, and works again once answers flow', async () => {
    await store.ping();
    expect(store.pgPool!.totalCount).toBe(1);
    proxy.pause();
    const started = performance.now();
    const err = await rejection(sql`select 1`.execute(store.db));
    expect(performance.now() - started).toBeLessThan(1000);
    expect(faultOf(err)).toEqual({ dependency: 'store', kind: 'timeout' });
    // The connection it ran on is gone: its late answer can't be read as the next one's.
    await new Promise((r) => setTimeout(r, 50));
    expect(store.pgPool!.totalCount).toBe(0);
    // While hung, a new connection can't be had either: the connect timeout answers.
    expect(faultOf(await rejection(store.ping()))).toEqual({
      dependency: 'store',
      kind: 'timeout',
    });
    proxy.pass();
    const { rows } = await sql<{ n: number }>`select 41 + 1 as n`.execute(store.db);
    expect(rows).toEqual([{ n: 42 }]);
  });
});
