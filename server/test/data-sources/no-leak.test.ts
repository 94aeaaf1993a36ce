import { ErrorBody } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';
import { freePort } from '../../../test/support/free-port';
import { expectNoSecret } from '../../../test/support/no-secret';

// Every secret a test sends carries this marker, so one search finds any of them.
const MARK = 'LEAKCANARY';
const secret = (name: string) => `${name}-${MARK}-${Math.random().toString(36).slice(2, 10)}`;
const BASE = { dialect: 'POSTGRES', host: 'db.example.com', username: 'analyst' };

describe.each(ENGINES)('no secret in responses or logs on %s', (engine) => {
  let bridge: TestBridge;
  let admin: { key: string };
  let orgId: string;
  let closedPort: number;
  const base = () => `/api/public/organizations/${orgId}/data-sources`;

  const expectNoMark = (res: { text: string }) => expectNoSecret([res.text, bridge.logs], MARK);
  const allSecrets = () => ({
    password: secret('pw'),
    sshPassword: secret('sshpw'),
    sshPrivateKey: secret('sshkey'),
    sshPrivateKeyPassphrase: secret('sshpass'),
    snowflakePrivateKey: secret('sfkey'),
    snowflakePrivateKeyPassphrase: secret('sfpass'),
    bigQueryJsonKey: secret('bq'),
  });

  beforeAll(async () => {
    bridge = await startBridge(engine);
    admin = await bridge.newUser();
    orgId = (
      await bridge.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: { name: 'Leak Org' },
      })
    ).body.data.id;
    closedPort = await freePort();
  });
  afterAll(() => bridge.stop());

  it('logs the requests it serves (the log search below is not vacuous)', async () => {
    await bridge.request('GET', base(), { key: admin.key });
    expect(bridge.logs.some((l) => l.includes('"msg":"request"'))).toBe(true);
  });

  it('puts no secret in a create response or the logs', async () => {
    const res = await bridge.request('POST', base(), {
      key: admin.key,
      body: { ...BASE, displayName: 'Leak Create', ...allSecrets() },
    });
    expect(res.status).toBe(201);
    expectNoMark(res);
  });

  it('puts no secret in a patch response or the logs', async () => {
    const created = await bridge.request('POST', base(), {
      key: admin.key,
      body: { ...BASE, displayName: 'Leak Patch', ...allSecrets() },
    });
    const res = await bridge.request('PATCH', `${base()}/${created.body.data.id}`, {
      key: admin.key,
      body: allSecrets(),
    });
    expect(res.status).toBe(200);
    expectNoMark(res);
  });

  it('puts no secret in the GET, list and DELETE responses', async () => {
    const created = await bridge.request('POST', base(), {
      key: admin.key,
      body: { ...BASE, displayName: 'Leak Reads', ...allSecrets() },
    });
    const id = created.body.data.id;
    const got = await bridge.request('GET', `${base()}/${id}`, { key: admin.key });
    const listed = await bridge.request('GET', base(), { key: admin.key });
    const deleted = await bridge.request('DELETE', `${base()}/${id}`, { key: admin.key });
    expect([got.status, listed.status, deleted.status]).toEqual([200, 200, 200]);
    for (const res of [got, listed, deleted]) expectNoMark(res);
  });

  it('puts no secret in a failed verify (refused port) or the logs', async () => {
    const res = await bridge.request('POST', `${base()}/verify`, {
      key: admin.key,
      body: { ...BASE, host: '127.0.0.1', port: closedPort, password: secret('pw') },
    });
    expect(res.status).toBe(422);
    expect(ErrorBody.parse(res.body).error.title).toBe('VerificationFailed');
    expect(bridge.logs.some((l) => l.includes('verify failed'))).toBe(true);
    expectNoMark(res);
  });

  it('puts no secret in a failed verify through SSH (refused SSH port) or the logs', async () => {
    const res = await bridge.request('POST', `${base()}/verify`, {
      key: admin.key,
      body: {
        ...BASE,
        password: secret('pw'),
        sshEnabled: true,
        sshHost: '127.0.0.1',
        sshPort: closedPort,
        sshUsername: 'tunnel',
        sshPassword: secret('sshpw'),
      },
    });
    expect(res.status).toBe(422);
    expect(ErrorBody.parse(res.body).error.title).toBe('VerificationFailed');
    expectNoMark(res);
  });

  it('puts no secret in a failed verify with an unreadable SSH private key', async () => {
    const res = await bridge.request('POST', `${base()}/verify`, {
      key: admin.key,
      body: {
        ...BASE,
        sshEnabled: true,
        sshHost: '127.0.0.1',
        sshPort: closedPort,
        sshUsername: 'tunnel',
        sshPrivateKey: secret('not-a-key'),
        sshPrivateKeyPassphrase: secret('sshpass'),
      },
    });
    expect(res.status).toBe(422);
    expect(ErrorBody.parse(res.body).error.title).toBe('VerificationFailed');
    expectNoMark(res);
  });

  it('puts no secret in a validation error (bad port next to a password)', async () => {
    const res = await bridge.request('POST', base(), {
      key: admin.key,
      body: { ...BASE, displayName: 'Leak 400', port: -1, password: secret('pw') },
    });
    expect(res.status).toBe(400);
    expectNoMark(res);
  });

  it('puts no secret in a validation error for a secret in a wrong-typed field', async () => {
    const res = await bridge.request('POST', base(), {
      key: admin.key,
      body: { ...BASE, displayName: 'Leak Port', port: secret('pw') },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.fieldErrors).toHaveProperty('port');
    expectNoMark(res);
  });

  it('puts no secret in a validation error for a mistyped secret field name', async () => {
    const res = await bridge.request('POST', base(), {
      key: admin.key,
      body: { ...BASE, displayName: 'Leak Typo', passwrod: secret('pw') },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.fieldErrors).toHaveProperty('passwrod');
    expectNoMark(res);
  });

  it('puts no secret in a validation error for a too-long password', async () => {
    const res = await bridge.request('POST', base(), {
      key: admin.key,
      body: { ...BASE, displayName: 'Leak Long', password: secret('pw').padEnd(1025, 'x') },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.fieldErrors).toHaveProperty('password');
    expectNoMark(res);
  });

  it('puts no secret in the rejection of a new value with its unset flag', async () => {
    const created = await bridge.request('POST', base(), {
      key: admin.key,
      body: { ...BASE, displayName: 'Leak Unset' },
    });
    const res = await bridge.request('PATCH', `${base()}/${created.body.data.id}`, {
      key: admin.key,
      body: { password: secret('pw'), unsetPassword: true },
    });
    expect(res.status).toBe(400);
    expectNoMark(res);
  });

  it('puts no secret in the answer to malformed JSON', async () => {
    const res = await bridge.request('POST', base(), {
      key: admin.key,
      rawBody: `{"password": "${secret('pw')}", "host": `,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(ErrorBody.parse(res.body).error.title).toBe('ValidationError');
    expect(res.body.error.code).toBe('malformed_json');
    expectNoMark(res);
  });

  it('puts no secret in a 403 for a MEMBER sending secrets', async () => {
    const email = `leak-member-${engine}@example.com`;
    await bridge.request('POST', `/api/public/organizations/${orgId}/members`, {
      key: admin.key,
      body: { email, role: 'MEMBER' },
    });
    const member = await bridge.newUser(email);
    const res = await bridge.request('POST', base(), {
      key: member.key,
      body: { ...BASE, displayName: 'Leak 403', password: secret('pw') },
    });
    expect(res.status).toBe(403);
    expectNoMark(res);
  });
});
