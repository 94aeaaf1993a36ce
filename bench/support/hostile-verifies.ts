import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { MAX_KDF_ROUNDS } from '../../server/src/verify/ssh-key-kdf';
import { freePort } from '../../test/support/free-port';

const run = promisify(execFile);

/**
 * What a hostile verify asks for: an SSH key with a huge KDF round count (refused when received,
 * a 400 before any connection slot), a host whose DNS never answers, a listener that never
 * speaks, or a key at the round cap (the most derivation the bridge accepts).
 */
export type HostileKind = 'huge-rounds' | 'dns' | 'silent' | 'at-cap';

/** An OpenSSH key with its bcrypt round count rewritten (PROTOCOL.key layout). */
function withRounds(pem: string, rounds: number): string {
  const lines = pem.trim().split('\n');
  const data = Buffer.from(lines.slice(1, -1).join(''), 'base64');
  let pos = 15; // "openssh-key-v1\0"
  pos += 4 + data.readUInt32BE(pos); // cipher name
  pos += 4 + data.readUInt32BE(pos); // kdf name
  pos += 4; // kdf options length
  pos += 4 + data.readUInt32BE(pos); // salt
  data.writeUInt32BE(rounds, pos);
  return `${lines[0]}\n${data.toString('base64')}\n${lines.at(-1)}`;
}

/** The targets hostile verifies point at: keys, a silent listener, a closed port. */
export async function hostileTargets() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-hostile-'));
  const file = path.join(dir, 'key');
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-a', '16', '-N', 'bench-pass', '-f', file]);
  const pem = fs.readFileSync(file, 'utf8');
  fs.rmSync(dir, { recursive: true, force: true });
  const sockets: Socket[] = [];
  const silent: Server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => {});
    socket.resume();
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const silentPort = (silent.address() as { port: number }).port;
  const closedPort = await freePort();
  const keys = { huge: withRounds(pem, 0xffffffff), atCap: withRounds(pem, MAX_KDF_ROUNDS) };

  const viaSsh = (sshPrivateKey: string) => ({
    dialect: 'POSTGRES',
    host: '127.0.0.1',
    username: 'u',
    sshEnabled: true,
    sshHost: '127.0.0.1',
    sshPort: closedPort,
    sshUsername: 'u',
    sshPrivateKey,
    sshPrivateKeyPassphrase: 'bench-pass',
  });
  return {
    body(kind: HostileKind, i: number): Record<string, unknown> {
      switch (kind) {
        case 'huge-rounds':
          return viaSsh(keys.huge);
        case 'at-cap':
          return viaSsh(keys.atCap);
        case 'dns':
          return { dialect: 'MYSQL', host: `never-${i}.hostile.example`, username: 'u' };
        case 'silent':
          return { dialect: 'POSTGRES', host: '127.0.0.1', port: silentPort, username: 'u' };
      }
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    },
  };
}

export interface Caller {
  key: string;
  orgId: string;
}

/** One attacking caller: who it is and the verify it keeps sending. */
export interface Attacker {
  key: string;
  orgId: string;
  body: Record<string, unknown>;
}

/**
 * Starts `count` attackers in their own process (so their work doesn't slow the measuring
 * client), caller `i % callers` sending kind `i % kinds`. Each keeps one verify going: the
 * next as soon as an answer arrives (at most `perKeyPerSecond` per key), or after `Retry-After`
 * when it was a 429. `stop()` resolves the statuses seen.
 */
export async function startAttack(
  url: string,
  callers: Caller[],
  kinds: HostileKind[],
  targets: Awaited<ReturnType<typeof hostileTargets>>,
  count: number,
  perKeyPerSecond: number,
) {
  const attackers: Attacker[] = Array.from({ length: count }, (_, i) => {
    const caller = callers[i % callers.length]!;
    return { ...caller, body: targets.body(kinds[i % kinds.length]!, i) };
  });
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(import.meta.dirname, 'hostile-client.ts'),
      url,
      String(perKeyPerSecond),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  child.stdin!.end(JSON.stringify(attackers));
  let out = '';
  child.stdout!.on('data', (chunk) => {
    out += chunk;
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    async stop(): Promise<Record<string, number>> {
      child.kill('SIGTERM');
      await exited;
      return JSON.parse(out || '{}');
    },
  };
}
