import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { appendFile, chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './processes';

const run = promisify(execFile);

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

export interface PgServer {
  /** `postgres://` URL of the cluster's `postgres` database (trust auth on loopback). */
  url: string;
  port: number;
  /** Stops the server (`pg_ctl stop -m fast`); the data stays. */
  pause(): Promise<void>;
  /** Starts it again on the same port and data. */
  resume(): Promise<void>;
  /** Stops it for good and deletes the data. */
  destroy(): Promise<void>;
}

/**
 * A private PostgreSQL cluster on a free loopback port that a test may stop and start at
 * will (the shared one on 5432 is never touched).
 */
export async function startPgServer(): Promise<PgServer> {
  const { stdout: uid } = await run('id', ['-u', 'postgres']);
  const { stdout: gid } = await run('id', ['-g', 'postgres']);
  const dir = await mkdtemp(join(tmpdir(), 'bk-pgfault-'));
  const data = join(dir, 'data');
  await chown(dir, Number(uid), Number(gid));
  await chmod(dir, 0o700);
  const port = await freePort();
  const start = () =>
    asPostgres('pg_ctl', ['start', '-w', '-t', '30', '-D', data, '-l', join(dir, 'log')]);
  const stop = (mode: 'fast' | 'immediate') =>
    asPostgres('pg_ctl', ['stop', '-w', '-m', mode, '-D', data]);
  try {
    await asPostgres('initdb', [
      '-D',
      data,
      '-U',
      'postgres',
      '-E',
      'UTF8',
      '--no-sync',
      '--auth-local=trust',
      '--auth-host=trust',
    ]);
    const settings = [
      `port = ${port}`,
      `listen_addresses = '127.0.0.1'`,
      `unix_socket_directories = '${dir}'`,
      'fsync = off',
      'full_page_writes = off',
      'max_connections = 40',
      'shared_buffers = 16MB',
    ];
    await appendFile(join(data, 'postgresql.conf'), `\n${settings.join('\n')}\n`);
    await start();
  } catch (error) {
    await stop('immediate').catch(() => {});
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  let running = true;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async pause() {
      await stop('fast');
      running = false;
    },
    async resume() {
      await start();
      running = true;
    },
    async destroy() {
      if (running) await stop('immediate').catch(() => {});
      running = false;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
