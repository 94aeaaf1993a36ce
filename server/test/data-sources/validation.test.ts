import { DataSource, ErrorBody, type ErrorCode, type FieldCode } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';

const MINIMAL = {
  dialect: 'POSTGRES',
  displayName: 'Warehouse',
  host: 'db.example.com',
  username: 'analyst',
};
const SSH = { sshEnabled: true, sshHost: 'bastion.example.com', sshUsername: 'tunnel' };
const BAD_PORTS: [string, unknown, FieldCode][] = [
  ['-1', -1, 'out_of_range'],
  ['65536', 65536, 'out_of_range'],
  ['1.5', 1.5, 'not_integer'],
  ['"5432" (a string)', '5432', 'invalid_type'],
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

  /** A 400 ValidationError whose fieldErrors has exactly these keys, with these field codes. */
  function expectFieldErrors(
    res: { status: number; body: unknown },
    fields: Record<string, FieldCode>,
    code: ErrorCode = 'validation_failed',
  ) {
    expect(res.status).toBe(400);
    const error = ErrorBody.parse(res.body).error;
    expect(error.title).toBe('ValidationError');
    expect(error.code).toBe(code);
    expect(Object.keys(error.fieldErrors ?? {}).sort()).toEqual(Object.keys(fields).sort());
    expect(error.fieldCodes).toEqual(fields);
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
      expectFieldErrors(await create(body), { displayName: 'required' });
    });

    it('rejects a blank displayName', async () => {
      expectFieldErrors(await create({ ...MINIMAL, displayName: '   ' }), {
        displayName: 'required',
      });
    });

    it('rejects a missing host for POSTGRES', async () => {
      const { host: _, ...body } = MINIMAL;
      expectFieldErrors(await create(body), { host: 'required' });
    });

    it('rejects a missing username for POSTGRES', async () => {
      const { username: _, ...body } = MINIMAL;
      expectFieldErrors(await create(body), { username: 'required' });
    });

    it('rejects a blank host for POSTGRES', async () => {
      expectFieldErrors(await create({ ...MINIMAL, host: '  ' }), { host: 'required' });
    });

    it('names host and username together when both are missing', async () => {
      expectFieldErrors(await create({ dialect: 'POSTGRES', displayName: 'X' }), {
        host: 'required',
        username: 'required',
      });
    });

    it('names displayName, host and username together when all three are missing', async () => {
      expectFieldErrors(await create({ dialect: 'POSTGRES' }), {
        displayName: 'required',
        host: 'required',
        username: 'required',
      });
    });

    it('rejects a missing dialect', async () => {
      const { dialect: _, ...body } = MINIMAL;
      expectFieldErrors(await create(body), { dialect: 'required' });
    });

    it('rejects a dialect the bridge does not connect to, naming the allowed ones', async () => {
      const res = await create({ ...MINIMAL, dialect: 'SNOWFLAKE' });
      expectFieldErrors(res, { dialect: 'invalid_value' });
      expect(res.body.error.fieldErrors.dialect).toBe('Allowed values: POSTGRES, MYSQL');
    });

    it('names host and username together for MYSQL too', async () => {
      expectFieldErrors(await create({ dialect: 'MYSQL', displayName: 'X' }), {
        host: 'required',
        username: 'required',
      });
    });

    it.each(BAD_PORTS)('rejects port %s', async (_label, port, code) => {
      expectFieldErrors(await create({ ...MINIMAL, port }), { port: code });
    });

    it.each(BAD_PORTS)('rejects sshPort %s', async (_label, sshPort, code) => {
      expectFieldErrors(await create({ ...MINIMAL, sshPort }), { sshPort: code });
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
      expectFieldErrors(res, { passwrod: 'unknown_field' });
    });

    it('rejects a read-only record field sent on create', async () => {
      expectFieldErrors(await create({ ...MINIMAL, isDemo: true }), { isDemo: 'unknown_field' });
    });

    it('rejects an unset flag on create (create has no unset flags)', async () => {
      expectFieldErrors(await create({ ...MINIMAL, unsetPassword: true }), {
        unsetPassword: 'unknown_field',
      });
    });

    it('rejects a non-boolean sslEnabled', async () => {
      expectFieldErrors(await create({ ...MINIMAL, sslEnabled: 'false' }), {
        sslEnabled: 'invalid_type',
      });
    });

    it('rejects a null secret on create', async () => {
      expectFieldErrors(await create({ ...MINIMAL, password: null }), { password: 'invalid_type' });
    });

    it('rejects sshEnabled without sshHost', async () => {
      const { sshHost: _, ...ssh } = SSH;
      expectFieldErrors(await create({ ...MINIMAL, ...ssh, sshPassword: 'x' }), {
        sshHost: 'required',
      });
    });

    it('rejects sshEnabled without sshUsername', async () => {
      const { sshUsername: _, ...ssh } = SSH;
      expectFieldErrors(await create({ ...MINIMAL, ...ssh, sshPassword: 'x' }), {
        sshUsername: 'required',
      });
    });

    it('rejects sshEnabled without an SSH password or private key', async () => {
      expectFieldErrors(await create({ ...MINIMAL, ...SSH }), {
        sshPassword: 'ssh_secret_required',
      });
    });

    it('names every missing SSH field together', async () => {
      expectFieldErrors(await create({ ...MINIMAL, sshEnabled: true }), {
        sshHost: 'required',
        sshPassword: 'ssh_secret_required',
        sshUsername: 'required',
      });
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
    it.each(BAD_PORTS)('rejects port %s', async (_label, port, code) => {
      expectFieldErrors(await patch(await createdId(), { port }), { port: code });
    });

    it.each(BAD_PORTS)('rejects sshPort %s', async (_label, sshPort, code) => {
      expectFieldErrors(await patch(await createdId(), { sshPort }), { sshPort: code });
    });

    it.each([0, 65535])('accepts port %i', async (port) => {
      const res = await patch(await createdId(), { port });
      expect(res.status).toBe(200);
      expect(DataSource.parse(res.body.data).port).toBe(port);
    });

    it('rejects an unknown field by name', async () => {
      expectFieldErrors(await patch(await createdId(), { hostname: 'x' }), {
        hostname: 'unknown_field',
      });
    });

    it('rejects a dialect change (dialect is not patchable)', async () => {
      expectFieldErrors(await patch(await createdId(), { dialect: 'POSTGRES' }), {
        dialect: 'unknown_field',
      });
    });

    it.each(UNSET_PAIRS)('rejects %s together with a new %s', async (flag, field) => {
      const res = await patch(await createdId(), { [field]: 'new-value', [flag]: true });
      expectFieldErrors(res, { [flag]: 'conflicting_unset' });
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
      expectFieldErrors(
        res,
        { sshHost: 'required', sshPassword: 'ssh_secret_required', sshUsername: 'required' },
        'data_source_incomplete',
      );
    });

    it('rejects sshEnabled true with a host and user but no SSH credential', async () => {
      const res = await patch(await createdId(), SSH);
      expectFieldErrors(res, { sshPassword: 'ssh_secret_required' }, 'data_source_incomplete');
    });

    it('accepts sshEnabled true when the patch brings host, user and password', async () => {
      const res = await patch(await createdId(), { ...SSH, sshPassword: 'ssh-pw' });
      expect(res.status).toBe(200);
      expect(DataSource.parse(res.body.data).sshEnabled).toBe(true);
    });

    it('rejects an empty sshHost while sshEnabled stays true', async () => {
      const id = await createdId({ ...MINIMAL, ...SSH, sshPassword: 'ssh-pw' });
      expectFieldErrors(
        await patch(id, { sshHost: '' }),
        // A changed SSH host drops the stored SSH password, which the patch did not send again.
        { sshHost: 'required', sshPassword: 'ssh_secret_required' },
        'data_source_incomplete',
      );
    });

    it('rejects unsetting the only SSH credential while sshEnabled stays true', async () => {
      const id = await createdId({ ...MINIMAL, ...SSH, sshPassword: 'ssh-pw' });
      expectFieldErrors(
        await patch(id, { unsetSshPassword: true }),
        { sshPassword: 'ssh_secret_required' },
        'data_source_incomplete',
      );
    });

    it('accepts unsetting the SSH password when turning SSH off in the same patch', async () => {
      const id = await createdId({ ...MINIMAL, ...SSH, sshPassword: 'ssh-pw' });
      const res = await patch(id, { sshEnabled: false, unsetSshPassword: true });
      expect(res.status).toBe(200);
      expect(DataSource.parse(res.body.data).storedSecrets).not.toContain('sshPassword');
    });

    it('rejects an empty host', async () => {
      expectFieldErrors(
        await patch(await createdId(), { host: '' }),
        { host: 'required' },
        'data_source_incomplete',
      );
    });

    it('rejects a whitespace-only host, as create does', async () => {
      expectFieldErrors(
        await patch(await createdId(), { host: '   ' }),
        { host: 'required' },
        'data_source_incomplete',
      );
    });

    it('rejects a blank displayName', async () => {
      expectFieldErrors(await patch(await createdId(), { displayName: ' ' }), {
        displayName: 'required',
      });
    });

    it('rejects displayName null', async () => {
      expectFieldErrors(await patch(await createdId(), { displayName: null }), {
        displayName: 'invalid_type',
      });
    });

    it('rejects sslEnabled null', async () => {
      expectFieldErrors(await patch(await createdId(), { sslEnabled: null }), {
        sslEnabled: 'invalid_type',
      });
    });
  });
});
