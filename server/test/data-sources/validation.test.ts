import { DataSource, ErrorBody } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../support/bridge';

const MINIMAL = {
  dialect: 'POSTGRES',
  displayName: 'Warehouse',
  host: 'db.example.com',
  username: 'analyst',
};
const SSH = { sshEnabled: true, sshHost: 'bastion.example.com', sshUsername: 'tunnel' };
const BAD_PORTS: [string, unknown][] = [
  ['-1', -1],
  ['65536', 65536],
  ['1.5', 1.5],
  ['"5432" (a string)', '5432'],
];
const UNSET_PAIRS = [
  ['unsetPassword', 'password'],
  ['unsetSshPassword', 'sshPassword'],
  ['unsetSshPrivateKey', 'sshPrivateKey'],
  ['unsetSshPrivateKeyPassphrase', 'sshPrivateKeyPassphrase'],
] as const;

describe.each(ENGINES)('data source validation on %s', (engine) => {
  let bridge: TestBridge;
  let admin: { key: string };
  let orgId: string;
  const base = () => `/api/public/organizations/${orgId}/data-sources`;

  const create = (body: unknown) => bridge.request('POST', base(), { key: admin.key, body });
  const patch = (id: string, body: unknown) =>
    bridge.request('PATCH', `${base()}/${id}`, { key: admin.key, body });
  async function createdId(body: Record<string, unknown> = MINIMAL): Promise<string> {
    const res = await create(body);
    expect(res.status).toBe(201);
    return res.body.data.id;
  }

  /** A 400 ValidationError whose fieldErrors has exactly these keys. */
  function expectFieldErrors(res: { status: number; body: unknown }, fields: string[]) {
    expect(res.status).toBe(400);
    const error = ErrorBody.parse(res.body).error;
    expect(error.title).toBe('ValidationError');
    expect(Object.keys(error.fieldErrors ?? {}).sort()).toEqual([...fields].sort());
  }

  beforeAll(async () => {
    bridge = await startBridge(engine);
    admin = await bridge.newUser();
    orgId = (
      await bridge.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: { name: 'Validation Org' },
      })
    ).body.data.id;
  });
  afterAll(() => bridge.stop());

  describe('create', () => {
    it('rejects a missing displayName', async () => {
      const { displayName: _, ...body } = MINIMAL;
      expectFieldErrors(await create(body), ['displayName']);
    });

    it('rejects a blank displayName', async () => {
      expectFieldErrors(await create({ ...MINIMAL, displayName: '   ' }), ['displayName']);
    });

    it('rejects a missing host for POSTGRES', async () => {
      const { host: _, ...body } = MINIMAL;
      expectFieldErrors(await create(body), ['host']);
    });

    it('rejects a missing username for POSTGRES', async () => {
      const { username: _, ...body } = MINIMAL;
      expectFieldErrors(await create(body), ['username']);
    });

    it('rejects a blank host for POSTGRES', async () => {
      expectFieldErrors(await create({ ...MINIMAL, host: '  ' }), ['host']);
    });

    it('names host and username together when both are missing', async () => {
      expectFieldErrors(await create({ dialect: 'POSTGRES', displayName: 'X' }), [
        'host',
        'username',
      ]);
    });

    it('names displayName, host and username together when all three are missing', async () => {
      expectFieldErrors(await create({ dialect: 'POSTGRES' }), ['displayName', 'host', 'username']);
    });

    it('rejects a missing dialect', async () => {
      const { dialect: _, ...body } = MINIMAL;
      expectFieldErrors(await create(body), ['dialect']);
    });

    it('rejects a dialect the bridge does not connect to, naming the allowed ones', async () => {
      const res = await create({ ...MINIMAL, dialect: 'SNOWFLAKE' });
      expectFieldErrors(res, ['dialect']);
      expect(res.body.error.fieldErrors.dialect).toBe('Allowed values: POSTGRES, MYSQL');
    });

    it('names host and username together for MYSQL too', async () => {
      expectFieldErrors(await create({ dialect: 'MYSQL', displayName: 'X' }), ['host', 'username']);
    });

    it.each(BAD_PORTS)('rejects port %s', async (_label, port) => {
      expectFieldErrors(await create({ ...MINIMAL, port }), ['port']);
    });

    it.each(BAD_PORTS)('rejects sshPort %s', async (_label, sshPort) => {
      expectFieldErrors(await create({ ...MINIMAL, sshPort }), ['sshPort']);
    });

    it.each([0, 65535])('accepts port %i', async (port) => {
      const res = await create({ ...MINIMAL, port });
      expect(res.status).toBe(201);
      expect(DataSource.parse(res.body.data).port).toBe(port);
    });

    it.each([0, 65535])('accepts sshPort %i', async (sshPort) => {
      const res = await create({ ...MINIMAL, sshPort });
      expect(res.status).toBe(201);
      expect(DataSource.parse(res.body.data).sshPort).toBe(sshPort);
    });

    it('rejects an unknown field by name', async () => {
      const res = await create({ ...MINIMAL, passwrod: 'typo' });
      expectFieldErrors(res, ['passwrod']);
    });

    it('rejects a read-only record field sent on create', async () => {
      expectFieldErrors(await create({ ...MINIMAL, isDemo: true }), ['isDemo']);
    });

    it('rejects an unset flag on create (create has no unset flags)', async () => {
      expectFieldErrors(await create({ ...MINIMAL, unsetPassword: true }), ['unsetPassword']);
    });

    it('rejects a non-boolean sslEnabled', async () => {
      expectFieldErrors(await create({ ...MINIMAL, sslEnabled: 'false' }), ['sslEnabled']);
    });

    it('rejects a null secret on create', async () => {
      expectFieldErrors(await create({ ...MINIMAL, password: null }), ['password']);
    });

    it('rejects sshEnabled without sshHost', async () => {
      const { sshHost: _, ...ssh } = SSH;
      expectFieldErrors(await create({ ...MINIMAL, ...ssh, sshPassword: 'x' }), ['sshHost']);
    });

    it('rejects sshEnabled without sshUsername', async () => {
      const { sshUsername: _, ...ssh } = SSH;
      expectFieldErrors(await create({ ...MINIMAL, ...ssh, sshPassword: 'x' }), ['sshUsername']);
    });

    it('rejects sshEnabled without an SSH password or private key', async () => {
      expectFieldErrors(await create({ ...MINIMAL, ...SSH }), ['sshPassword']);
    });

    it('names every missing SSH field together', async () => {
      expectFieldErrors(await create({ ...MINIMAL, sshEnabled: true }), [
        'sshHost',
        'sshPassword',
        'sshUsername',
      ]);
    });

    it('accepts sshEnabled with a private key instead of a password', async () => {
      const res = await create({ ...MINIMAL, ...SSH, sshPrivateKey: 'key-material' });
      expect(res.status).toBe(201);
      expect(DataSource.parse(res.body.data).sshEnabled).toBe(true);
    });

    it('accepts SSH fields without sshEnabled (stored, not required)', async () => {
      const res = await create({ ...MINIMAL, sshHost: 'bastion.example.com' });
      expect(res.status).toBe(201);
      expect(DataSource.parse(res.body.data).sshHost).toBe('bastion.example.com');
    });

    it('rejects a body that is not an object', async () => {
      const res = await create([MINIMAL]);
      expect(res.status).toBe(400);
      expect(ErrorBody.parse(res.body).error.title).toBe('ValidationError');
    });

    it('creates nothing when the body is rejected', async () => {
      const before = await bridge.request('GET', `${base()}?limit=100`, { key: admin.key });
      await create({ ...MINIMAL, port: -1 });
      const after = await bridge.request('GET', `${base()}?limit=100`, { key: admin.key });
      expect(after.body.data).toEqual(before.body.data);
    });
  });

  describe('patch', () => {
    it.each(BAD_PORTS)('rejects port %s', async (_label, port) => {
      expectFieldErrors(await patch(await createdId(), { port }), ['port']);
    });

    it.each(BAD_PORTS)('rejects sshPort %s', async (_label, sshPort) => {
      expectFieldErrors(await patch(await createdId(), { sshPort }), ['sshPort']);
    });

    it.each([0, 65535])('accepts port %i', async (port) => {
      const res = await patch(await createdId(), { port });
      expect(res.status).toBe(200);
      expect(DataSource.parse(res.body.data).port).toBe(port);
    });

    it('rejects an unknown field by name', async () => {
      expectFieldErrors(await patch(await createdId(), { hostname: 'x' }), ['hostname']);
    });

    it('rejects a dialect change (dialect is not patchable)', async () => {
      expectFieldErrors(await patch(await createdId(), { dialect: 'POSTGRES' }), ['dialect']);
    });

    it.each(UNSET_PAIRS)('rejects %s together with a new %s', async (flag, field) => {
      const res = await patch(await createdId(), { [field]: 'new-value', [flag]: true });
      expectFieldErrors(res, [flag]);
    });

    it.each(UNSET_PAIRS)('accepts %s false together with a new %s', async (flag, field) => {
      const res = await patch(await createdId(), { [field]: 'new-value', [flag]: false });
      expect(res.status).toBe(200);
      expect(DataSource.parse(res.body.data).storedSecrets).toContain(field);
    });

    it('leaves the record unchanged when the patch is rejected', async () => {
      const id = await createdId({ ...MINIMAL, password: 'pw-kept' });
      const before = await bridge.request('GET', `${base()}/${id}`, { key: admin.key });
      await patch(id, { displayName: 'Changed', password: 'pw-new', unsetPassword: true });
      const after = await bridge.request('GET', `${base()}/${id}`, { key: admin.key });
      expect(after.body.data).toEqual(before.body.data);
    });

    it('rejects sshEnabled true on a source without any SSH settings', async () => {
      const res = await patch(await createdId(), { sshEnabled: true });
      expectFieldErrors(res, ['sshHost', 'sshPassword', 'sshUsername']);
    });

    it('rejects sshEnabled true with a host and user but no SSH credential', async () => {
      const res = await patch(await createdId(), SSH);
      expectFieldErrors(res, ['sshPassword']);
    });

    it('accepts sshEnabled true when the patch brings host, user and password', async () => {
      const res = await patch(await createdId(), { ...SSH, sshPassword: 'ssh-pw' });
      expect(res.status).toBe(200);
      expect(DataSource.parse(res.body.data).sshEnabled).toBe(true);
    });

    it('rejects an empty sshHost while sshEnabled stays true', async () => {
      const id = await createdId({ ...MINIMAL, ...SSH, sshPassword: 'ssh-pw' });
      expectFieldErrors(await patch(id, { sshHost: '' }), ['sshHost']);
    });

    it('rejects unsetting the only SSH credential while sshEnabled stays true', async () => {
      const id = await createdId({ ...MINIMAL, ...SSH, sshPassword: 'ssh-pw' });
      expectFieldErrors(await patch(id, { unsetSshPassword: true }), ['sshPassword']);
    });

    it('accepts unsetting the SSH password when turning SSH off in the same patch', async () => {
      const id = await createdId({ ...MINIMAL, ...SSH, sshPassword: 'ssh-pw' });
      const res = await patch(id, { sshEnabled: false, unsetSshPassword: true });
      expect(res.status).toBe(200);
      expect(DataSource.parse(res.body.data).storedSecrets).not.toContain('sshPassword');
    });

    it('rejects an empty host', async () => {
      expectFieldErrors(await patch(await createdId(), { host: '' }), ['host']);
    });

    it('rejects a whitespace-only host, as create does', async () => {
      expectFieldErrors(await patch(await createdId(), { host: '   ' }), ['host']);
    });

    it('rejects a blank displayName', async () => {
      expectFieldErrors(await patch(await createdId(), { displayName: ' ' }), ['displayName']);
    });

    it('rejects displayName null', async () => {
      expectFieldErrors(await patch(await createdId(), { displayName: null }), ['displayName']);
    });

    it('rejects sslEnabled null', async () => {
      expectFieldErrors(await patch(await createdId(), { sslEnabled: null }), ['sslEnabled']);
    });
  });
});
