import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  access,
  appendFile,
  chmod,
  mkdir,
  mkdtemp,
  readFile,
  rm,
  writeFile,
} from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port';
import { waitFor } from './wait';

const run = promisify(execFile);
const SSHD = '/usr/sbin/sshd';

export interface SshUser {
  username: string;
}

export interface Sshd {
  host: '127.0.0.1';
  port: number;
  passwordUser: SshUser & { password: string };
  keyUser: SshUser & { privateKey: string };
  passphraseUser: SshUser & { privateKey: string; passphrase: string };
  /** Adds a public key (one OpenSSH `.pub` line) to one of the users' authorized keys. */
  authorize(username: string, publicKey: string): Promise<void>;
  stop(): Promise<void>;
}

/** Creates the OS user when missing and sets its password (also unlocks it for key logins). */
async function ensureUser(username: string, password: string): Promise<void> {
  const exists = await run('id', ['-u', username]).then(
    () => true,
    () => false,
  );
  if (!exists) await run('useradd', ['--no-create-home', '--shell', '/bin/sh', username]);
  const child = execFile('chpasswd');
  child.stdin?.end(`${username}:${password}\n`);
  await new Promise<void>((resolve, reject) =>
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error('chpasswd failed')))),
  );
}

const USERS = { password: 'bk_ssh_pw', key: 'bk_ssh_key', passphrase: 'bk_ssh_pp' } as const;
/** Where the password user's password is kept (root only) once the accounts are set up. */
const ACCOUNTS = join(tmpdir(), 'bk-sshd-accounts');
const ACCOUNTS_LOCK = `${ACCOUNTS}.lock`;

/**
 * The OS accounts every sshd of the suite lets in, set up once per machine: the users are the
 * machine's, so a second server setting new passwords would lock out the logins of one already
 * running in another test file. The first caller (under a directory lock: `mkdir` is atomic)
 * creates them, sets the passwords and then records the password user's; the others read it.
 */
async function sharedAccounts(): Promise<string> {
  // The record, while the accounts it speaks of still exist (a machine reset keeps /tmp alone).
  const recorded = async () => {
    const password = (await readFile(ACCOUNTS, 'utf8')).trim();
    await Promise.all(Object.values(USERS).map((user) => run('id', ['-u', user])));
    return password;
  };
  const ready = await recorded().catch(() => undefined);
  if (ready) return ready;
  // `mkdir` fails with EEXIST while another process holds the lock.
  await waitFor(() => mkdir(ACCOUNTS_LOCK).then(() => true), {
    what: `the sshd accounts lock ${ACCOUNTS_LOCK}`,
    timeoutMs: 30_000,
    intervalMs: 50,
  });
  try {
    const other = await recorded().catch(() => undefined);
    if (other) return other;
    const password = `pw-${randomBytes(9).toString('hex')}`;
    await ensureUser(USERS.password, password);
    // Every account gets a password: sshd refuses locked accounts even for keys.
    await ensureUser(USERS.key, randomBytes(12).toString('hex'));
    await ensureUser(USERS.passphrase, randomBytes(12).toString('hex'));
    await writeFile(ACCOUNTS, password, { mode: 0o600 });
    return password;
  } finally {
    await rm(ACCOUNTS_LOCK, { recursive: true, force: true });
  }
}

async function keygen(dir: string, name: string, passphrase: string): Promise<string> {
  const path = join(dir, name);
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', passphrase, '-C', name, '-f', path]);
  return path;
}

/** Resolves once the server sends its SSH identification line. */
function waitForBanner(port: number, deadline: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const socket = connect(port, '127.0.0.1');
      socket.once('data', (chunk) => {
        socket.destroy();
        if (chunk.toString('latin1').startsWith('SSH-')) resolve();
        else reject(new Error('unexpected banner'));
      });
      socket.once('error', () => {
        socket.destroy();
        if (Date.now() > deadline) reject(new Error('sshd did not start'));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

/**
 * An OpenSSH server (Debian `openssh-server`) on a free loopback port with its own
 * host key, config and authorized keys, run in the foreground as a child process.
 * Needs root (privilege separation, useradd, chpasswd).
 */
export async function startSshd(): Promise<Sshd> {
  await access(SSHD).catch(() => {
    throw new Error('sshd not found: apt-get install -y openssh-server');
  });
  // Privilege separation directory; normally created by the service unit.
  await mkdir('/run/sshd', { recursive: true, mode: 0o755 });

  const dir = await mkdtemp(join(tmpdir(), 'bk-sshd-'));
  // sshd reads authorized keys as the target user: the tree must be world-readable.
  await chmod(dir, 0o755);
  let child: ChildProcess | undefined;
  try {
    const hostKey = await keygen(dir, 'host_key', '');
    const keys = join(dir, 'authorized_keys');
    await mkdir(keys, { mode: 0o755 });

    const passwordUser = { username: USERS.password, password: await sharedAccounts() };
    const keyUser = { username: USERS.key, privateKey: '' };
    const passphraseUser = {
      username: USERS.passphrase,
      privateKey: '',
      passphrase: `pp-${randomBytes(9).toString('hex')}`,
    };
    const keyPath = await keygen(dir, 'key_user', '');
    const passphrasePath = await keygen(dir, 'passphrase_user', passphraseUser.passphrase);
    keyUser.privateKey = await readFile(keyPath, 'utf8');
    passphraseUser.privateKey = await readFile(passphrasePath, 'utf8');
    await writeFile(join(keys, keyUser.username), await readFile(`${keyPath}.pub`), {
      mode: 0o644,
    });
    await writeFile(join(keys, passphraseUser.username), await readFile(`${passphrasePath}.pub`), {
      mode: 0o644,
    });

    const port = await freePort();
    const config = join(dir, 'sshd_config');
    await writeFile(
      config,
      [
        `Port ${port}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${hostKey}`,
        `PidFile ${join(dir, 'sshd.pid')}`,
        `AuthorizedKeysFile ${keys}/%u`,
        // The temp dir is not root-owned all the way up the way StrictModes wants.
        'StrictModes no',
        // No PAM: passwords are checked against /etc/shadow, no session modules run.
        'UsePAM no',
        'PasswordAuthentication yes',
        'KbdInteractiveAuthentication no',
        'PubkeyAuthentication yes',
        'PermitRootLogin no',
        `AllowUsers ${passwordUser.username} ${keyUser.username} ${passphraseUser.username}`,
        'AllowTcpForwarding local',
        'PermitOpen 127.0.0.1:*',
        'X11Forwarding no',
        'PrintMotd no',
        'MaxStartups 100',
        'MaxAuthTries 10',
        'LogLevel ERROR',
        '',
      ].join('\n'),
    );

    const proc = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    child = proc;
    let stderr = '';
    proc.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    const exited = new Promise<never>((_, reject) =>
      proc.once('exit', (code) => reject(new Error(`sshd exited (${code}): ${stderr}`))),
    );
    exited.catch(() => {});
    await Promise.race([waitForBanner(port, Date.now() + 10_000), exited]);

    let stopped = false;
    return {
      host: '127.0.0.1',
      port,
      passwordUser,
      keyUser,
      passphraseUser,
      async authorize(username, publicKey) {
        await appendFile(join(keys, username), `${publicKey.trim()}\n`);
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        if (proc.exitCode === null) {
          const gone = new Promise((resolve) => proc.once('exit', resolve));
          proc.kill('SIGTERM');
          await gone;
        }
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    child?.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
