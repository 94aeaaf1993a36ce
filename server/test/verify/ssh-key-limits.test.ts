import { generateKeyPairSync } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import ssh2 from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type TestBridge } from '../../../test/support/bridge';
import { craftMismatchedRsa, craftRsa, openSshKey, pkcs1 } from '../../../test/support/crafted-rsa';
import { type Sshd, startSshd } from '../../../test/support/sshd';
import { MAX_RSA_BITS } from '../../src/verify/ssh-key-shape';
import { verifyConnection } from '../../src/verify/verify';
import { runInWorker, WorkerTaskError } from '../../src/verify/worker-task';

// SSH private keys are refused at input past sane sizes, re-checked when a stored one is used,
// and sign in a worker: a key crafted to sign slowly never holds up other requests.

/** A rogue SSH server: accepts any public key; records what happened in order. */
interface RogueSsh {
  port: number;
  events: string[];
  /** Called when the server invites the client's signature (USERAUTH_PK_OK). */
  onInvite?: () => void;
  /** Called when the signed request arrives. */
  onSignature?: () => void;
  close(): Promise<void>;
}

async function startRogueSsh(): Promise<RogueSsh> {
  const hostKey = ssh2.utils.generateKeyPairSync('ed25519').private;
  const rogue = { events: [] as string[] } as RogueSsh;
  const server = new ssh2.Server({ hostKeys: [hostKey] }, (client) => {
    client.on('error', () => {});
    client.on('authentication', (ctx) => {
      if (ctx.method !== 'publickey') return ctx.reject(['publickey']);
      if (!ctx.signature) {
        rogue.events.push('invite');
        rogue.onInvite?.();
        return ctx.accept();
      }
      rogue.events.push('signature');
      rogue.onSignature?.();
      ctx.accept();
    });
    client.on('ready', () => {
      client.on('tcpip', (_accept, reject) => reject());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  rogue.port = (server.address() as AddressInfo).port;
  rogue.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return rogue;
}

// --- The bridge ---

let bridge: TestBridge;
let rogue: RogueSsh;
let key: string;
let orgId: string;

beforeAll(async () => {
  [bridge, rogue] = await Promise.all([startBridge('sqlite'), startRogueSsh()]);
  key = (await bridge.newUser()).key;
  orgId = (
    await bridge.request('POST', '/api/public/organizations', { key, body: { name: 'Keys' } })
  ).body.data.id;
}, 60_000);

afterAll(async () => {
  await Promise.all([bridge?.stop(), rogue?.close()]);
});

const base = () => ({
  dialect: 'POSTGRES',
  host: '127.0.0.1',
  port: 5432,
  username: 'u',
  sslEnabled: false,
  sshEnabled: true,
  sshHost: '127.0.0.1',
  sshPort: rogue.port,
  sshUsername: 'anyone',
});
const dsPath = () => `/api/public/organizations/${orgId}/data-sources`;
const create = (body: Record<string, unknown>) =>
  bridge.request('POST', dsPath(), { key, body: { displayName: 'K', ...base(), ...body } });
const verify = (body: Record<string, unknown>) =>
  bridge.request('POST', `${dsPath()}/verify`, { key, body: { ...base(), ...body } });

const UNSUPPORTED = {
  title: 'ValidationError',
  code: 'validation_failed',
  detail: 'The SSH private key is of an unsupported type or size.',
  fieldErrors: { sshPrivateKey: 'Use an Ed25519, ECDSA or RSA key; RSA from 1024 to 8192 bits.' },
  fieldCodes: { sshPrivateKey: 'ssh_key_unsupported' },
  params: { minRsaBits: 1024, maxRsaBits: 8192 },
};
const INVALID = {
  title: 'ValidationError',
  code: 'validation_failed',
  detail: 'The SSH private key could not be read.',
  fieldErrors: { sshPrivateKey: 'The private key could not be read or is not supported.' },
  fieldCodes: { sshPrivateKey: 'ssh_key_invalid' },
};

describe('SSH private keys at input', () => {
  const oversized = craftRsa(MAX_RSA_BITS + 16);

  it('refuses an RSA key over 8192 bits on create, update and verify, naming the field', async () => {
    const sshPrivateKey = openSshKey(oversized);
    const created = await create({ sshPrivateKey });
    expect(created.status).toBe(400);
    expect(created.body).toEqual({ error: UNSUPPORTED });
    const verified = await verify({ sshPrivateKey });
    expect(verified.status).toBe(400);
    expect(verified.body).toEqual({ error: UNSUPPORTED });
    expect(rogue.events).toEqual([]); // refused before any connection

    const fine = await create({ sshPassword: 'pw-keys-1' });
    expect(fine.status).toBe(201);
    const patched = await bridge.request('PATCH', `${dsPath()}/${fine.body.data.id}`, {
      key,
      body: { sshPrivateKey },
    });
    expect(patched.status).toBe(400);
    expect(patched.body).toEqual({ error: UNSUPPORTED });
    const after = await bridge.request('GET', `${dsPath()}/${fine.body.data.id}`, { key });
    expect(after.body.data.storedSecrets).toEqual(['sshPassword']);
  });

  it('refuses the issue’s key: 16,384-bit modulus, 128-bit factors, in OpenSSH format', async () => {
    const sshPrivateKey = openSshKey(craftMismatchedRsa(16_384));
    expect(sshPrivateKey.length).toBeLessThan(16_384); // fits the field's limit
    const res = await verify({ sshPrivateKey });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: UNSUPPORTED });
  });

  it('refuses its 8192-bit version: the factors do not make the modulus', async () => {
    const res = await verify({ sshPrivateKey: openSshKey(craftMismatchedRsa(8192)) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: INVALID });
  });

  it('refuses the same key as PKCS#1 PEM', async () => {
    const res = await create({ sshPrivateKey: pkcs1(oversized) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: UNSUPPORTED });
  });

  it('refuses an encrypted key by its public half, without the passphrase', async () => {
    const res = await create({
      sshPrivateKey: openSshKey(oversized, 'ssh-rsa', { encrypted: true }),
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: UNSUPPORTED });
  });

  it('refuses a key type the bridge does not sign with', async () => {
    const res = await create({ sshPrivateKey: openSshKey(craftRsa(2048), 'ssh-dss') });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: UNSUPPORTED });
  });

  it('refuses an RSA key whose factors do not make its modulus', async () => {
    const k = craftRsa(2048);
    const res = await create({ sshPrivateKey: openSshKey({ ...k, p: k.p + 2n }) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: INVALID });
  });

  it('refuses armoured text that is no key', async () => {
    const res = await create({
      sshPrivateKey: '-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----',
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: INVALID });
  });

  it('accepts a real Ed25519 key', async () => {
    const { private: sshPrivateKey } = ssh2.utils.generateKeyPairSync('ed25519');
    const res = await create({ sshPrivateKey });
    expect(res.status).toBe(201);
    expect(res.body.data.storedSecrets).toEqual(['sshPrivateKey']);
  });
});

describe('signing with an SSH private key', () => {
  it('happens off the event loop: /healthz keeps answering while the key signs', async () => {
    rogue.events.length = 0;
    // Within the limits, but its factors are not prime: OpenSSL signs it the slow way (~0.1 s
    // of one core on an idle machine; several seconds for the 16,384 bits).
    const sshPrivateKey = pkcs1(craftRsa(MAX_RSA_BITS));
    // From the invitation to sign until the signature arrives, /healthz asked again and again.
    let signed = false;
    const answered: number[] = [];
    let answeredBeforeSignature = 0;
    let probing: Promise<void> | undefined;
    rogue.onInvite = () => {
      probing = (async () => {
        while (!signed) answered.push((await fetch(`${bridge.url}/healthz`)).status);
      })();
    };
    rogue.onSignature = () => {
      signed = true;
      answeredBeforeSignature = answered.length;
    };
    const res = await verify({ sshPrivateKey });
    rogue.onInvite = rogue.onSignature = undefined;
    await probing;
    expect(rogue.events).toEqual(['invite', 'signature']);
    // Signed on the event loop, nothing is answered between the two: the client signs as it
    // reads the invitation and sends the signature in the same turn. Signed in a worker, the
    // loop keeps serving, each answer a healthy one.
    expect(answeredBeforeSignature).toBeGreaterThanOrEqual(5);
    expect(new Set(answered)).toEqual(new Set([200]));
    // The server took the key; the target was refused by the rogue, so the verify fails there.
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('ssh_target_unreachable');
  });

  it('re-checks a stored key when it is used: an oversized one never reaches the server', async () => {
    const created = await create({ sshPassword: 'pw-keys-2' });
    const id = created.body.data.id as string;
    // As if stored before the limits: written to the store directly.
    const hostile = openSshKey(craftRsa(MAX_RSA_BITS + 16));
    await bridge.deps.store.db
      .updateTable('dataSources')
      .set({
        sshPasswordSealed: null,
        sshPrivateKeySealed: bridge.deps.secretBox.seal(hostile, id, 'sshPrivateKey'),
      })
      .where('id', '=', id)
      .execute();
    rogue.events.length = 0;
    const res = await bridge.request('POST', `${dsPath()}/${id}/health-check`, { key });
    expect(res.status).toBe(200);
    expect(res.body.data.lastHealthStatus).toBe('UNHEALTHY');
    expect(res.body.data.healthErrorMessage).toBe(
      'The SSH private key is of an unsupported type or size.',
    );
    expect(rogue.events).toEqual([]);
  });
});

describe('a worker task under a deadline', () => {
  it('is stopped mid-computation when the signal aborts', async () => {
    const controller = new AbortController();
    const running = runInWorker('for (;;) {}', {}, controller.signal);
    setTimeout(() => controller.abort(), 50);
    const error = await running.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkerTaskError);
    expect((error as WorkerTaskError).aborted).toBe(true);
  });
});

describe('signing in a worker, checked by a real sshd', () => {
  let sshd: Sshd;
  beforeAll(async () => {
    sshd = await startSshd();
  }, 60_000);
  afterAll(async () => {
    await sshd?.stop();
  });

  // sshd verifies the signature: a key it accepts signed correctly (hash, encoding) in the worker.
  it.each([
    ['RSA (rsa-sha2-256)', () => generateKeyPairSync('rsa', { modulusLength: 2048 })],
    ['ECDSA P-256', () => generateKeyPairSync('ec', { namedCurve: 'P-256' })],
    ['ECDSA P-384', () => generateKeyPairSync('ec', { namedCurve: 'P-384' })],
  ])('authenticates with %s', async (_name, generate) => {
    const { privateKey } = generate();
    const pem = privateKey
      .export({ type: privateKey.asymmetricKeyType === 'rsa' ? 'pkcs1' : 'sec1', format: 'pem' })
      .toString();
    const parsed = ssh2.utils.parseKey(pem) as ssh2.ParsedKey;
    await sshd.authorize(
      sshd.keyUser.username,
      `${parsed.type} ${parsed.getPublicSSH().toString('base64')}`,
    );
    const outcome = await verifyConnection(
      {
        dialect: 'POSTGRES',
        host: '127.0.0.1',
        port: 1, // nothing listens: the forward fails, after the login succeeded
        username: 'u',
        sshEnabled: true,
        sshHost: sshd.host,
        sshPort: sshd.port,
        sshUsername: sshd.keyUser.username,
        sshPrivateKey: pem,
      },
      { timeoutMs: 8000, allowPrivateNetworks: true },
    );
    expect(outcome).toMatchObject({ ok: false, reason: 'ssh-forward-failed' });
  });

  it('is refused by sshd for a key it does not know', async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const outcome = await verifyConnection(
      {
        dialect: 'POSTGRES',
        host: '127.0.0.1',
        port: 1,
        username: 'u',
        sshEnabled: true,
        sshHost: sshd.host,
        sshPort: sshd.port,
        sshUsername: sshd.keyUser.username,
        sshPrivateKey: privateKey.export({ type: 'sec1', format: 'pem' }).toString(),
      },
      { timeoutMs: 8000, allowPrivateNetworks: true },
    );
    expect(outcome).toMatchObject({ ok: false, reason: 'ssh-auth' });
  });
});
