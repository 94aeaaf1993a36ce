import { createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import ssh2 from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../test/support/free-port';
import { expectNoSecret } from '../../../test/support/no-secret';
import { type PgCluster, startPgCluster } from '../../../test/support/pg-cluster';
import { type Sshd, startSshd } from '../../../test/support/sshd';
import { MAX_KDF_ROUNDS } from '../../src/verify/ssh-key-kdf';
import { verifyConnection } from '../../src/verify/verify';

const options = { timeoutMs: 8000, allowPrivateNetworks: true };

let db: PgCluster;
let sshd: Sshd;

beforeAll(async () => {
  [db, sshd] = await Promise.all([
    startPgCluster({ ssl: true, auth: 'scram-sha-256' }),
    startSshd(),
  ]);
});

afterAll(async () => {
  await Promise.all([db?.stop(), sshd?.stop()]);
});

/** The database as seen from the SSH host: its own loopback. */
const viaPassword = () =>
  ({
    dialect: 'POSTGRES',
    host: '127.0.0.1',
    port: db.port,
    username: db.user,
    password: db.password,
    databaseName: db.database,
    sshEnabled: true,
    sshHost: sshd.host,
    sshPort: sshd.port,
    sshUsername: sshd.passwordUser.username,
    sshPassword: sshd.passwordUser.password,
  }) as const;

const viaKey = () => {
  const { sshPassword: _none, ...rest } = viaPassword();
  return { ...rest, sshUsername: sshd.keyUser.username, sshPrivateKey: sshd.keyUser.privateKey };
};

const viaPassphraseKey = () => ({
  ...viaKey(),
  sshUsername: sshd.passphraseUser.username,
  sshPrivateKey: sshd.passphraseUser.privateKey,
  sshPrivateKeyPassphrase: sshd.passphraseUser.passphrase,
});

function fieldsOf(outcome: Awaited<ReturnType<typeof verifyConnection>>): string[] {
  return outcome.ok ? [] : Object.keys(outcome.fieldErrors).sort();
}

/** Every secret the tests hand to the probe: passwords, a passphrase, a line of each key. */
const secrets = () => [
  db.password,
  sshd.passwordUser.password,
  sshd.passphraseUser.passphrase,
  sshd.keyUser.privateKey.split('\n')[1] ?? '',
  sshd.passphraseUser.privateKey.split('\n')[1] ?? '',
];

describe('verifyConnection through an SSH tunnel', () => {
  it('succeeds with an SSH password (TLS to the database through the tunnel)', async () => {
    await expect(verifyConnection(viaPassword(), options)).resolves.toEqual({ ok: true });
  });

  it('succeeds with an SSH private key', async () => {
    await expect(verifyConnection(viaKey(), options)).resolves.toEqual({ ok: true });
  });

  it('succeeds with a passphrase-protected key, keeping the event loop free', async () => {
    let maxGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
    }, 5);
    try {
      await expect(verifyConnection(viaPassphraseKey(), options)).resolves.toEqual({ ok: true });
    } finally {
      clearInterval(timer);
    }
    // bcrypt_pbkdf on the main thread would stall it for ~0.4 s.
    expect(maxGap).toBeLessThan(200);
  });

  it('reports sshUsername and sshPassword for a wrong SSH password', async () => {
    const outcome = await verifyConnection(
      { ...viaPassword(), sshPassword: 'wrong-ssh-secret' },
      options,
    );
    expect(outcome).toMatchObject({ ok: false, reason: 'ssh-auth' });
    expect(fieldsOf(outcome)).toEqual(['sshPassword', 'sshUsername']);
    expect(JSON.stringify(outcome)).not.toContain('wrong-ssh-secret');
    expectNoSecret(outcome, ...secrets());
  });

  it('reports sshUsername and sshPrivateKey for a key the server does not know', async () => {
    const stranger = ssh2.utils.generateKeyPairSync('ed25519');
    const outcome = await verifyConnection(
      { ...viaKey(), sshPrivateKey: stranger.private },
      options,
    );
    expect(outcome).toMatchObject({ ok: false, reason: 'ssh-auth' });
    expect(fieldsOf(outcome)).toEqual(['sshPrivateKey', 'sshUsername']);
    expect(JSON.stringify(outcome)).not.toContain(stranger.private.split('\n')[1]);
  });

  it('reports sshPrivateKeyPassphrase for a wrong passphrase', async () => {
    const outcome = await verifyConnection(
      { ...viaPassphraseKey(), sshPrivateKeyPassphrase: 'wrong-passphrase' },
      options,
    );
    expect(outcome).toMatchObject({ ok: false, reason: 'ssh-passphrase' });
    expect(fieldsOf(outcome)).toEqual(['sshPrivateKeyPassphrase']);
    expect(JSON.stringify(outcome)).not.toContain('wrong-passphrase');
    expectNoSecret(outcome, ...secrets());
  });

  it('reports sshPrivateKeyPassphrase when an encrypted key comes without one', async () => {
    const { sshPrivateKeyPassphrase: _none, ...withoutPassphrase } = viaPassphraseKey();
    const outcome = await verifyConnection(withoutPassphrase, options);
    expect(outcome).toMatchObject({ ok: false, reason: 'ssh-passphrase' });
    expect(fieldsOf(outcome)).toEqual(['sshPrivateKeyPassphrase']);
  });

  it('stops a key derivation that outlasts the deadline, worker thread and all', async () => {
    // Rewrite the bcrypt round count of the encrypted key (OpenSSH key format, PROTOCOL.key)
    // to the most the bridge accepts: seconds of derivation, far past this deadline.
    const pem = sshd.passphraseUser.privateKey.trim().split('\n');
    const data = Buffer.from(pem.slice(1, -1).join(''), 'base64');
    let pos = 15; // "openssh-key-v1\0"
    pos += 4 + data.readUInt32BE(pos); // cipher name
    pos += 4 + data.readUInt32BE(pos); // kdf name
    pos += 4; // kdf options length
    pos += 4 + data.readUInt32BE(pos); // salt
    data.writeUInt32BE(MAX_KDF_ROUNDS, pos);
    const slowKey = `${pem[0]}\n${data.toString('base64')}\n${pem.at(-1)}`;

    const started = performance.now();
    const outcome = await verifyConnection(
      { ...viaPassphraseKey(), sshPrivateKey: slowKey },
      { timeoutMs: 400, allowPrivateNetworks: true },
    );
    expect(performance.now() - started).toBeLessThan(400 + 200);
    expect(outcome).toMatchObject({ ok: false, reason: 'timeout' });
    expect(fieldsOf(outcome)).toEqual(['sshPrivateKey']);
    // A derivation left running would keep a core busy for seconds: the process's CPU time
    // over the next half second shows the worker is gone.
    await sleep(100);
    const before = process.cpuUsage();
    await sleep(500);
    const used = process.cpuUsage(before);
    expect((used.user + used.system) / 1000).toBeLessThan(250);
  });

  it('reports sshPrivateKey for a key that cannot be parsed', async () => {
    const outcome = await verifyConnection(
      {
        ...viaKey(),
        sshPrivateKey:
          '-----BEGIN OPENSSH PRIVATE KEY-----\nbm90IGEga2V5\n-----END OPENSSH PRIVATE KEY-----',
      },
      options,
    );
    expect(outcome).toMatchObject({ ok: false, reason: 'ssh-key' });
    expect(fieldsOf(outcome)).toEqual(['sshPrivateKey']);
  });

  it('reports host when the target is not reachable from the SSH host', async () => {
    const outcome = await verifyConnection({ ...viaPassword(), port: await freePort() }, options);
    expect(outcome).toMatchObject({ ok: false, reason: 'ssh-forward-failed' });
    expect(fieldsOf(outcome)).toEqual(['host']);
    expectNoSecret(outcome, ...secrets());
  });

  it('reports host when the SSH server refuses to forward there', async () => {
    // The fixture permits forwarding to 127.0.0.1 only.
    const outcome = await verifyConnection({ ...viaPassword(), host: '127.0.0.2' }, options);
    expect(outcome).toMatchObject({ ok: false, reason: 'ssh-forward-prohibited' });
    expect(fieldsOf(outcome)).toEqual(['host']);
  });

  it('reports sshPort when the SSH connection is refused', async () => {
    const outcome = await verifyConnection(
      { ...viaPassword(), sshPort: await freePort() },
      options,
    );
    expect(outcome).toMatchObject({ ok: false, reason: 'ssh-ECONNREFUSED' });
    expect(fieldsOf(outcome)).toEqual(['sshPort']);
  });

  it('reports sshHost when the SSH host does not resolve', async () => {
    const outcome = await verifyConnection({ ...viaPassword(), sshHost: 'nope.invalid' }, options);
    expect(outcome).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^ssh-(ENOTFOUND|EAI_AGAIN)$/),
    });
    expect(fieldsOf(outcome)).toEqual(['sshHost']);
  });

  it('maps database failures behind the tunnel like direct ones', async () => {
    const outcome = await verifyConnection(
      { ...viaPassword(), password: 'wrong-db-secret' },
      options,
    );
    expect(outcome).toMatchObject({ ok: false, reason: '28P01' });
    expect(fieldsOf(outcome)).toEqual(['password', 'username']);
    expect(JSON.stringify(outcome)).not.toContain('wrong-db-secret');
  });

  describe('against an SSH host that never answers', () => {
    let silent: Server;
    let port: number;
    const accepted: Socket[] = [];
    beforeAll(async () => {
      silent = createServer((socket) => {
        accepted.push(socket);
        socket.resume();
      });
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      port = (silent.address() as { port: number }).port;
    });
    afterAll(async () => {
      for (const socket of accepted) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    });

    it('reports sshHost with the service address, within the deadline', async () => {
      const started = performance.now();
      const outcome = await verifyConnection(
        { ...viaPassword(), sshPort: port },
        { timeoutMs: 400, allowPrivateNetworks: true, serviceIp: '203.0.113.7' },
      );
      expect(performance.now() - started).toBeLessThan(400 + 200);
      expect(outcome).toMatchObject({ ok: false, reason: 'timeout' });
      expect(fieldsOf(outcome)).toEqual(['sshHost']);
      expect(outcome.ok ? '' : outcome.fieldErrors.sshHost).toContain('203.0.113.7');
    });
  });
});
