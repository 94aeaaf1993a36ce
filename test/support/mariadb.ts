import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, chown, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { freePort } from './free-port';
import { osUserIds } from './os-user';
import { selfSignedCertificate } from './tls-cert';

const run = promisify(execFile);

export interface MariaDbOptions {
  /** Serve TLS with a throwaway self-signed certificate; without it the server offers none. */
  tls: boolean;
}

export interface MariaDb {
  host: '127.0.0.1';
  port: number;
  /** A password account with every privilege on `database` only. */
  user: string;
  password: string;
  database: string;
  /** Runs setup SQL as root over the server's unix socket. */
  admin(sql: string): Promise<void>;
  stop(): Promise<void>;
}

/** The server's password account and database as data-source connection fields. */
export const mysqlConnectionOf = (server: MariaDb) =>
  ({
    dialect: 'MYSQL',
    host: server.host,
    port: server.port,
    username: server.user,
    password: server.password,
    databaseName: server.database,
  }) as const;

/** A self-signed certificate and key in `dir`, readable by the server's OS user. */
async function certificate(dir: string, ids: { uid: number; gid: number }): Promise<string[]> {
  const { key, crt } = await selfSignedCertificate(dir, ids);
  return [`--ssl-cert=${crt}`, `--ssl-key=${key}`];
}

/** Connects as root over the socket until the server answers (it takes a moment to start). */
async function waitForServer(socketPath: string, exited: Promise<never>) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const connecting = mysql.createConnection({ socketPath, user: 'root' });
      return await Promise.race([connecting, exited]);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await Promise.race([new Promise((resolve) => setTimeout(resolve, 100)), exited]);
    }
  }
}

/**
 * A throwaway MariaDB server (Debian `mariadb-server`) in a temp dir, on a free loopback port
 * (never 3306), run as the `mysql` OS user in the foreground, with one password account and one
 * database. Needs root (runs the server as `mysql`, and root signs in over its socket).
 */
export async function startMariaDb(options: MariaDbOptions): Promise<MariaDb> {
  const ids = await osUserIds('mysql');
  const dir = await mkdtemp(join(tmpdir(), 'bk-maria-'));
  let child: ChildProcess | undefined;
  const remove = async () => {
    if (child && child.exitCode === null) {
      const gone = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGTERM');
      await gone;
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await chown(dir, ids.uid, ids.gid);
    await chmod(dir, 0o700);
    const data = join(dir, 'data');
    // Its own temp dir: the server's temporary tables never meet another server's (or another
    // test's clean-up) in the shared /tmp. mariadb-install-db passes it to its bootstrap server.
    const temp = join(dir, 'tmp');
    await mkdir(temp);
    await chown(temp, ids.uid, ids.gid);
    await run('mariadb-install-db', [
      '--no-defaults',
      `--datadir=${data}`,
      `--tmpdir=${temp}`,
      '--user=mysql',
      '--auth-root-authentication-method=socket',
      '--skip-test-db',
      '--skip-name-resolve',
    ]);
    const port = await freePort();
    const socketPath = join(dir, 'sock');
    const tls = options.tls ? await certificate(dir, ids) : [];
    const proc = spawn(
      'mariadbd',
      [
        '--no-defaults',
        `--datadir=${data}`,
        `--tmpdir=${temp}`,
        '--user=mysql',
        `--port=${port}`,
        '--bind-address=127.0.0.1',
        `--socket=${socketPath}`,
        `--pid-file=${join(dir, 'pid')}`,
        `--log-error=${join(dir, 'log')}`,
        '--skip-name-resolve',
        '--skip-log-bin',
        '--innodb-buffer-pool-size=8M',
        ...tls,
      ],
      { stdio: 'ignore' },
    );
    child = proc;
    const exited = new Promise<never>((_, reject) =>
      proc.once('exit', (code) => reject(new Error(`mariadbd exited (${code}); see its log`))),
    );
    exited.catch(() => {});
    const root = await waitForServer(socketPath, exited);
    const admin = async (sql: string) => void (await root.query(sql));

    const user = `bk_user_${randomBytes(3).toString('hex')}`;
    const password = `pw-${randomBytes(12).toString('base64url')}`;
    const database = `bk_db_${randomBytes(3).toString('hex')}`;
    await admin(`CREATE DATABASE ${database}`);
    await admin(`CREATE USER '${user}'@'%' IDENTIFIED BY '${password}'`);
    await admin(`GRANT ALL PRIVILEGES ON ${database}.* TO '${user}'@'%'`);

    let stopped = false;
    return {
      host: '127.0.0.1',
      port,
      user,
      password,
      database,
      admin,
      async stop() {
        if (stopped) return;
        stopped = true;
        await root.end().catch(() => {});
        await remove();
      },
    };
  } catch (error) {
    await remove();
    throw error;
  }
}
