import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../test/support/free-port';
import { type MariaDb, mysqlConnectionOf, startMariaDb } from '../../../test/support/mariadb';
import { type Sshd, startSshd } from '../../../test/support/sshd';
import { verifyConnection } from '../../src/verify/verify';

const options = { timeoutMs: 8000, allowPrivateNetworks: true };

let db: MariaDb;
let sshd: Sshd;

beforeAll(async () => {
  [db, sshd] = await Promise.all([startMariaDb({ tls: true }), startSshd()]);
});

afterAll(async () => {
  await Promise.all([db?.stop(), sshd?.stop()]);
});

/** The database as seen from the SSH host: its own loopback. */
const viaPassword = () =>
  ({
    ...mysqlConnectionOf(db),
    sshEnabled: true,
    sshHost: sshd.host,
    sshPort: sshd.port,
    sshUsername: sshd.passwordUser.username,
    sshPassword: sshd.passwordUser.password,
  }) as const;

const fieldsOf = (outcome: Awaited<ReturnType<typeof verifyConnection>>) =>
  outcome.ok ? [] : Object.keys(outcome.fieldErrors).sort();

describe('verifyConnection with MySQL through an SSH tunnel', () => {
  it('succeeds with an SSH password (TLS to the database through the tunnel)', async () => {
    await expect(verifyConnection(viaPassword(), options)).resolves.toEqual({ ok: true });
  });

  it('succeeds with a passphrase-protected SSH key', async () => {
    const { sshPassword: _none, ...rest } = viaPassword();
    const outcome = await verifyConnection(
      {
        ...rest,
        sshUsername: sshd.passphraseUser.username,
        sshPrivateKey: sshd.passphraseUser.privateKey,
        sshPrivateKeyPassphrase: sshd.passphraseUser.passphrase,
      },
      options,
    );
    expect(outcome).toEqual({ ok: true });
  });

  it('maps database failures behind the tunnel like direct ones', async () => {
    const outcome = await verifyConnection(
      { ...viaPassword(), password: 'wrong-db-secret' },
      options,
    );
    expect(outcome).toMatchObject({ ok: false, reason: '28000' });
    expect(fieldsOf(outcome)).toEqual(['password', 'username']);
    expect(JSON.stringify(outcome)).not.toContain('wrong-db-secret');
  });

  it('reports host when the target is not reachable from the SSH host', async () => {
    const outcome = await verifyConnection({ ...viaPassword(), port: await freePort() }, options);
    expect(outcome).toMatchObject({ ok: false, reason: 'ssh-forward-failed' });
    expect(fieldsOf(outcome)).toEqual(['host']);
  });

  it('reports sshUsername and sshPassword for a wrong SSH password', async () => {
    const outcome = await verifyConnection(
      { ...viaPassword(), sshPassword: 'wrong-ssh-secret' },
      options,
    );
    expect(outcome).toMatchObject({ ok: false, reason: 'ssh-auth' });
    expect(fieldsOf(outcome)).toEqual(['sshPassword', 'sshUsername']);
  });
});
