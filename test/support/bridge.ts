import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import { type AppOptions, createApp } from '../../server/src/app';
import { bootstrap } from '../../server/src/bootstrap';
import { loadConfig } from '../../server/src/config';
import type { Deps } from '../../server/src/deps';
import { createApiKeyForEmail } from '../../server/src/domain/api-key-admin';
import { startBackgroundJobs } from '../../server/src/lifecycle/start';
import { createLogger } from '../../server/src/log';
import { undeclaredError } from './declared-errors';
import { type PgBouncer, startPgBouncer } from './pgbouncer';

/**
 * The stores the suites run on. `pgbouncer`: PostgreSQL through a private PgBouncer in
 * transaction pooling mode, with the bridge's default settings (as many instances run it).
 */
export type Engine = 'sqlite' | 'postgres' | 'pgbouncer';
const ALL_ENGINES: Engine[] = ['sqlite', 'postgres', 'pgbouncer'];

/** `BRIDGEKIT_ENGINES=sqlite,postgres` runs every suite on those engines alone (unset: defaults). */
function enginesFromEnv(defaults: Engine[]): Engine[] {
  const chosen = process.env.BRIDGEKIT_ENGINES?.split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (!chosen?.length) return defaults;
  const unknown = chosen.filter((e) => !ALL_ENGINES.includes(e as Engine));
  if (unknown.length) throw new Error(`BRIDGEKIT_ENGINES: unknown engine(s) ${unknown.join(', ')}`);
  return chosen as Engine[];
}

/** The store contract and pooler-specific suites: every engine, PgBouncer included. */
export const STORE_ENGINES: Engine[] = enginesFromEnv(ALL_ENGINES);
/** HTTP-level suites: their behaviour does not depend on a pooler in front of PostgreSQL. */
export const ENGINES: Engine[] = enginesFromEnv(['sqlite', 'postgres']);

/** The machine's shared PostgreSQL (trust auth); each bridge gets its own fresh database. */
export const PG_ADMIN_URL =
  process.env.TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

// One PgBouncer per test process, shared by its databases, stopped once none uses it.
let bouncer: { started: Promise<PgBouncer>; users: number; idle?: NodeJS.Timeout } | undefined;

async function acquireBouncer(): Promise<{ bouncer: PgBouncer; release(): Promise<void> }> {
  bouncer ??= { started: startPgBouncer({ mode: 'transaction' }), users: 0 };
  const entry = bouncer;
  clearTimeout(entry.idle);
  entry.users++;
  let started: PgBouncer;
  try {
    started = await entry.started;
  } catch (error) {
    entry.users--;
    if (bouncer === entry) bouncer = undefined;
    throw error;
  }
  return {
    bouncer: started,
    async release() {
      if (--entry.users > 0) return;
      // A moment's grace, so the next test's database reuses it.
      entry.idle = setTimeout(() => {
        if (entry.users > 0) return;
        if (bouncer === entry) bouncer = undefined;
        void started.stop();
      }, 1000);
      entry.idle.unref();
    },
  };
}

/**
 * A fresh database on the machine's PostgreSQL. `url` is where the bridge connects: the
 * database itself, or (`pgbouncer`) the database through a transaction-mode PgBouncer;
 * `directUrl` is always the database itself.
 */
export async function createPgDatabase(
  via: 'postgres' | 'pgbouncer' = 'postgres',
): Promise<{ url: string; directUrl: string; drop(): Promise<void> }> {
  const name = `bk_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  const pooled = via === 'pgbouncer' ? await acquireBouncer() : undefined;
  return {
    url: pooled ? pooled.bouncer.url(name) : url.toString(),
    directUrl: url.toString(),
    async drop() {
      await pooled?.release();
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export interface TestResponse {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON and check it with the contract.
  body: any;
  text: string;
}

export interface TestBridge {
  engine: Engine;
  url: string;
  deps: Deps;
  /** Every log line the bridge wrote, as raw JSON text. */
  logs: string[];
  dataDir: string;
  databaseUrl: string | undefined;
  request(
    method: string,
    path: string,
    options?: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> },
  ): Promise<TestResponse>;
  /** A new user with a fresh API key. */
  newUser(email?: string): Promise<{ key: string; userId: string; email: string }>;
  stop(): Promise<void>;
}

let counter = 0;

export interface ServedBridge {
  url: string;
  deps: Deps;
  logs: string[];
  request: TestBridge['request'];
  /** Stops the server and closes the store; the data is left as it is. */
  close(): Promise<void>;
}

/**
 * A real bridge (createApp + a real store) on a free loopback port, configured from `env`
 * alone: the data dir or database is the caller's, and survives `close()`.
 */
export async function serveBridge(
  env: Record<string, string | undefined>,
  app: AppOptions = {},
): Promise<ServedBridge> {
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'info', ...env });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const deps = await bootstrap(config, createLogger(config.logLevel, sink));
  await startBackgroundJobs(deps);
  const server: Server = await new Promise((resolve) => {
    const s = createApp(deps, app).listen(0, '127.0.0.1', () => resolve(s));
  });
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url,
    deps,
    logs,
    async request(method, p, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.key) headers.authorization = `Bearer ${options.key}`;
      let body: string | undefined = options.rawBody;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await fetch(`${url}${p}`, { method, headers, body, redirect: 'manual' });
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      const undeclared = undeclaredError(method, p, res.status, parsed);
      if (undeclared) throw new Error(`Contract broken: ${undeclared}`);
      return { status: res.status, headers: res.headers, body: parsed, text };
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await deps.lifecycle.stop();
      await deps.store.close();
    },
  };
}

/** Starts a real bridge on fresh data (a temp dir, and a fresh database on PostgreSQL). */
export async function startBridge(
  engine: Engine,
  env: Record<string, string> = {},
  app: AppOptions = {},
): Promise<TestBridge> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-test-'));
  const database = engine === 'sqlite' ? undefined : await createPgDatabase(engine);
  const served = await serveBridge(
    {
      BRIDGE_DATA_DIR: dataDir,
      DATABASE_URL: database?.url,
      BRIDGE_SECRET_KEY: randomBytes(32).toString('base64'),
      BRIDGE_SESSION_SECRET: randomBytes(32).toString('base64url'),
      ...env,
    },
    app,
  );
  const { deps } = served;
  return {
    engine,
    url: served.url,
    deps,
    logs: served.logs,
    dataDir,
    databaseUrl: database?.url,
    request: served.request,
    async newUser(email) {
      const address = email ?? `user${++counter}-${randomBytes(3).toString('hex')}@example.com`;
      const { key, userId } = await createApiKeyForEmail(
        deps.store.db,
        { email: address },
        deps.now(),
      );
      return { key, userId, email: address };
    },
    async stop() {
      await served.close();
      await database?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
