import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './free-port';
import { osUserIds } from './os-user';

export interface PgBouncerOptions {
  /** transaction (the default) or session pooling. */
  mode?: 'transaction' | 'session';
  /** Server connections per database and user (PgBouncer's default_pool_size; default 20). */
  defaultPoolSize?: number;
  /** Server connections per database, all users together (max_db_connections; 0: no limit). */
  maxDbConnections?: number;
  /** Client connections PgBouncer accepts (max_client_conn; default 200). */
  maxClientConn?: number;
  /** The PostgreSQL behind it (default: the machine's, 127.0.0.1:5432, trust). */
  server?: { host: string; port: number };
}

export interface PgBouncer {
  port: number;
  mode: 'transaction' | 'session';
  /** `postgres://` URL of `database` through the pooler (the `postgres` role). */
  url(database: string): string;
  /** PgBouncer's log so far (stderr), for a failing test's message. */
  log(): string;
  /** Stops PgBouncer (SIGTERM) and deletes its temp dir. */
  stop(): Promise<void>;
}

/**
 * A private PgBouncer (Debian's `pgbouncer`) on a free loopback port, in a temp dir, pooling
 * every database of a PostgreSQL (by default the machine's on 5432) for the `postgres` role
 * with trust auth. PgBouncer refuses to run as root: as root it runs as the `postgres` user.
 * It gets SIGTERM when the process that started it dies, so a crashed test leaves none behind.
 */
export async function startPgBouncer(options: PgBouncerOptions = {}): Promise<PgBouncer> {
  const mode = options.mode ?? 'transaction';
  const server = options.server ?? { host: '127.0.0.1', port: 5432 };
  const dir = await mkdtemp(join(tmpdir(), 'bk-pgbouncer-'));
  const port = await freePort();
  const ini = join(dir, 'pgbouncer.ini');
  await writeFile(join(dir, 'users.txt'), '"postgres" ""\n');
  await writeFile(
    ini,
    [
      '[databases]',
      `* = host=${server.host} port=${server.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      `pool_mode = ${mode}`,
      `default_pool_size = ${options.defaultPoolSize ?? 20}`,
      `max_db_connections = ${options.maxDbConnections ?? 0}`,
      `max_client_conn = ${options.maxClientConn ?? 200}`,
      // A client past the limits waits for a server connection rather than failing at once.
      'query_wait_timeout = 30',
      'log_connections = 0',
      'log_disconnections = 0',
      '',
    ].join('\n'),
  );
  // As root, PgBouncer runs as the postgres user (it refuses root).
  const ids = process.getuid?.() === 0 ? await osUserIds('postgres') : undefined;
  if (ids) {
    await chown(dir, ids.uid, ids.gid);
    await chown(ini, ids.uid, ids.gid);
    await chown(join(dir, 'users.txt'), ids.uid, ids.gid);
  }
  const args = ids
    ? ['--pdeathsig', 'TERM', '--reuid', 'postgres', '--regid', 'postgres', '--init-groups']
    : ['--pdeathsig', 'TERM'];
  // Debian installs it in /usr/sbin, which a non-root PATH may lack.
  const bin = existsSync('/usr/sbin/pgbouncer') ? '/usr/sbin/pgbouncer' : 'pgbouncer';
  const child: ChildProcess = spawn('setpriv', [...args, bin, ini], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr?.on('data', (chunk) => {
    log += String(chunk);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stopped = false;
  const stop = async () => {
    if (!stopped) {
      stopped = true;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    }
  };
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  try {
    await ready(
      url('postgres'),
      () => child.exitCode !== null,
      () => log,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { port, mode, url, log: () => log, stop };
}

/** Waits (up to 10 s) until a query through the pooler answers. */
async function ready(url: string, died: () => boolean, log: () => string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (died()) throw new Error(`pgbouncer exited at start:\n${log()}`);
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('select 1');
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => {});
      if (Date.now() > deadline) {
        throw new Error(`pgbouncer did not answer: ${(error as Error).message}\n${log()}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
