import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type TestBridge } from '../../../test/support/bridge';
import { type PgCluster, startPgCluster } from '../../../test/support/pg-cluster';
import { type Sshd, startSshd } from '../../../test/support/sshd';
import { MAX_KDF_ROUNDS } from '../../src/verify/ssh-key-kdf';

const run = promisify(execFile);
const PASSPHRASE = 'rounds-pass-7Qx';

let db: PgCluster;
let sshd: Sshd;
let bridge: TestBridge;
let keyDir: string;
let key: string;
let orgId: string;

/** An encrypted ed25519 key made by ssh-keygen with `-a rounds`; its private and public halves. */
async function keygen(rounds: number) {
  const path = join(keyDir, `key_a${rounds}`);
  await run('ssh-keygen', [
    '-q',
    '-t',
    'ed25519',
    '-a',
    String(rounds),
    '-N',
    PASSPHRASE,
    '-C',
    'r',
    '-f',
    path,
  ]);
  return {
    privateKey: await readFile(path, 'utf8'),
    publicKey: await readFile(`${path}.pub`, 'utf8'),
  };
}

beforeAll(async () => {
  keyDir = await mkdtemp(join(tmpdir(), 'bk-rounds-'));
  [db, sshd, bridge] = await Promise.all([
    startPgCluster({ ssl: false, auth: 'scram-sha-256' }),
    startSshd(),
    // -a 100 is ~2 s of derivation on an idle core; a busy shared machine may need far more.
    startBridge('sqlite', { BRIDGE_VERIFY_TIMEOUT_MS: '60000' }),
  ]);
  key = (await bridge.newUser()).key;
  const org = await bridge.request('POST', '/api/public/organizations', {
    key,
    body: { name: 'Rounds Org' },
  });
  orgId = org.body.data.id;
});

afterAll(async () => {
  await Promise.all([db?.stop(), sshd?.stop(), bridge?.stop()]);
  if (keyDir) await rm(keyDir, { recursive: true, force: true });
});

const verifyWithKey = (privateKey: string) =>
  bridge.request('POST', `/api/public/organizations/${orgId}/data-sources/verify`, {
    key,
    body: {
      dialect: 'POSTGRES',
      host: '127.0.0.1',
      port: db.port,
      username: db.user,
      password: db.password,
      databaseName: db.database,
      sslEnabled: false,
      sshEnabled: true,
      sshHost: sshd.host,
      sshPort: sshd.port,
      sshUsername: sshd.passphraseUser.username,
      sshPrivateKey: privateKey,
      sshPrivateKeyPassphrase: PASSPHRASE,
    },
  });

// Refused when received, before any connection: a 400 on the key field.
const REFUSED = {
  error: {
    title: 'ValidationError',
    detail: `The SSH private key asks for more than ${MAX_KDF_ROUNDS} key-derivation rounds.`,
    code: 'validation_failed',
    fieldErrors: {
      sshPrivateKey: `The key uses more than ${MAX_KDF_ROUNDS} KDF rounds. Re-encrypt it with fewer (ssh-keygen -p -a 100).`,
    },
    fieldCodes: { sshPrivateKey: 'ssh_key_too_slow' },
    params: { maxRounds: MAX_KDF_ROUNDS },
  },
};

describe('the cap on an SSH key’s KDF rounds', () => {
  it('sits where ssh-keygen defaults (16) and hardened settings (-a 100) pass', () => {
    expect(MAX_KDF_ROUNDS).toBeGreaterThanOrEqual(100);
    expect(MAX_KDF_ROUNDS).toBeLessThan(256);
  });

  it('verifies through the tunnel with a key made by ssh-keygen -a 100', async () => {
    const hardened = await keygen(100);
    await sshd.authorize(sshd.passphraseUser.username, hardened.publicKey);
    const res = await verifyWithKey(hardened.privateKey);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { success: true } });
  });

  it('refuses a key made with one round more than the cap, at once', async () => {
    const { privateKey } = await keygen(MAX_KDF_ROUNDS + 1);
    const started = performance.now();
    const res = await verifyWithKey(privateKey);
    // Deriving it would take seconds of CPU; the refusal reads only the key's header.
    expect(performance.now() - started).toBeLessThan(1500);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(REFUSED);
    expect(res.text).not.toContain(PASSPHRASE);
  });

  it('refuses a key whose rounds field was edited to 2^32 - 1, at once', async () => {
    const { privateKey } = await keygen(16);
    const pem = privateKey.trim().split('\n');
    const data = Buffer.from(pem.slice(1, -1).join(''), 'base64');
    let pos = 15; // "openssh-key-v1\0"
    pos += 4 + data.readUInt32BE(pos); // cipher name
    pos += 4 + data.readUInt32BE(pos); // kdf name
    pos += 4; // kdf options length
    pos += 4 + data.readUInt32BE(pos); // salt
    data.writeUInt32BE(0xffffffff, pos);
    const started = performance.now();
    const res = await verifyWithKey(`${pem[0]}\n${data.toString('base64')}\n${pem.at(-1)}`);
    expect(performance.now() - started).toBeLessThan(1500);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(REFUSED);
  });
});
