import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { appendFile, chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './free-port';
import { osUserIds } from './os-user';
import { selfSignedCertificate } from './tls-cert';

const run = promisify(execFile);

export interface PgClusterOptions {
  ssl: boolean;
  auth: 'scram-sha-256';
}

export interface PgCluster {
  host: '127.0.0.1';
  port: number;
  user: string;
  password: string;
  database: string;
  stop(): Promise<void>;
}

/** The cluster's password role and database as data-source connection fields (verify, create). */
export const connectionOf = (cluster: PgCluster) =>
  ({
    dialect: 'POSTGRES',
    host: cluster.host,
    port: cluster.port,
    username: cluster.user,
    password: cluster.password,
    databaseName: cluster.database,
  }) as const;

/** The newest installed PostgreSQL (Debian layout: /usr/lib/postgresql/<major>/bin). */
function pgBin(name: string): string {
  const majors = readdirSync('/usr/lib/postgresql')
    .filter((d) => /^\d+$/.test(d))
    .sort((a, b) => Number(b) - Number(a));
  if (majors.length === 0) throw new Error('PostgreSQL server binaries not found');
  return `/usr/lib/postgresql/${majors[0]}/bin/${name}`;
}

// initdb and pg_ctl refuse to run as root.
const asPostgres = (bin: string, args: string[]) =>
  run('runuser', ['-u', 'postgres', '--', pgBin(bin), ...args], { cwd: '/' });

export interface PgDataDir {
  /** The temp dir (also the unix socket directory); `data` is the cluster inside it. */
  dir: string;
  port: number;
  start(): Promise<unknown>;
  stop(mode: 'fast' | 'immediate'): Promise<unknown>;
  /** Stops the server if it runs (immediate) and deletes everything. */
  remove(): Promise<void>;
}

/**
 * A fresh cluster owned by the `postgres` OS user in a temp dir, on a free loopback port (never
 * 5432), not started yet. `settings` (given the dir and the postgres ids, for files it must
 * own) are appended to postgresql.conf.
 */
export async function initPgDataDir(options: {
  prefix: string;
  authHost: string;
  settings(dir: string, ids: { uid: number; gid: number }): Promise<string[]> | string[];
}): Promise<PgDataDir> {
  const ids = await osUserIds('postgres');
  const dir = await mkdtemp(join(tmpdir(), options.prefix));
  const data = join(dir, 'data');
  const start = () =>
    asPostgres('pg_ctl', ['start', '-w', '-t', '30', '-D', data, '-l', join(dir, 'log')]);
  const stop = (mode: 'fast' | 'immediate') =>
    asPostgres('pg_ctl', ['stop', '-w', '-m', mode, '-D', data]);
  const remove = async () => {
    await stop('immediate').catch(() => {});
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await chown(dir, ids.uid, ids.gid);
    await chmod(dir, 0o700);
    await asPostgres('initdb', [
      '-D',
      data,
      '-U',
      'postgres',
      '-E',
      'UTF8',
      '--no-sync',
      '--auth-local=trust',
      `--auth-host=${options.authHost}`,
    ]);
    const port = await freePort();
    const settings = [
      `port = ${port}`,
      `listen_addresses = '127.0.0.1'`,
      `unix_socket_directories = '${dir}'`,
      'fsync = off',
      'full_page_writes = off',
      'shared_buffers = 16MB',
      ...(await options.settings(dir, ids)),
    ];
    await appendFile(join(data, 'postgresql.conf'), `\n${settings.join('\n')}\n`);
    return { dir, port, start, stop, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

/**
 * A throwaway PostgreSQL cluster on a free loopback port, owned by the `postgres`
 * OS user, with one password role and one database. Never touches port 5432.
 */
export async function startPgCluster(options: PgClusterOptions): Promise<PgCluster> {
  const cluster = await initPgDataDir({
    prefix: 'bk-pg-',
    authHost: options.auth,
    async settings(dir, ids) {
      const settings = [
        'synchronous_commit = off',
        `password_encryption = '${options.auth}'`,
        'max_connections = 50',
        `ssl = ${options.ssl ? 'on' : 'off'}`,
      ];
      if (options.ssl) {
        const { key, crt } = await selfSignedCertificate(dir, ids);
        settings.push(`ssl_cert_file = '${crt}'`, `ssl_key_file = '${key}'`);
      }
      return settings;
    },
  });
  const { dir, port } = cluster;
  try {
    await cluster.start();

    const user = `bk_user_${randomBytes(3).toString('hex')}`;
    const password = `pw-${randomBytes(12).toString('base64url')}`;
    const database = `bk_db_${randomBytes(3).toString('hex')}`;
    // Setup over the unix socket, where the superuser is trusted.
    const admin = new pg.Client({ host: dir, port, user: 'postgres', database: 'postgres' });
    await admin.connect();
    try {
      await admin.query(`CREATE ROLE ${user} LOGIN PASSWORD '${password}'`);
      await admin.query(`CREATE DATABASE ${database} OWNER ${user}`);
    } finally {
      await admin.end();
    }

    let stopped = false;
    return {
      host: '127.0.0.1',
      port,
      user,
      password,
      database,
      async stop() {
        if (stopped) return;
        stopped = true;
        await cluster.stop('fast').catch(() => {});
        await cluster.remove();
      },
    };
  } catch (error) {
    await cluster.remove();
    throw error;
  }
}
