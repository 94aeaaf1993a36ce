import { DataSource, ErrorBody, pageOf } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';

/** Every field of the public DataSource record, plus our addition `storedSecrets` (names only). */
const RECORD_FIELDS = [
  'bigQueryProjectId',
  'createdAt',
  'databaseName',
  'description',
  'dialect',
  'displayName',
  'hasCompletedFirstSync',
  'healthErrorMessage',
  'host',
  'id',
  'isDemo',
  'isServiceWarehouse',
  'lastHealthCheckAttemptAt',
  'lastHealthStatus',
  'lastHealthyAt',
  'lastSuccessfulSyncAt',
  'lastSyncAttemptAt',
  'lastSyncStatus',
  'port',
  'snowflakeAccountId',
  'snowflakeRole',
  'snowflakeWarehouse',
  'spannerInstanceId',
  'sshEnabled',
  'sshHost',
  'sshPort',
  'sshUsername',
  'sslCustomCertificatesEnabled',
  'sslEnabled',
  'storedSecrets',
  'syncErrorMessage',
  'updatedAt',
  'username',
];

const MINIMAL = {
  dialect: 'POSTGRES',
  displayName: 'Warehouse',
  host: 'db.example.com',
  username: 'analyst',
};

describe.each(ENGINES)('data source CRUD on %s', (engine) => {
  let bridge: TestBridge;
  let admin: { key: string };
  let orgId: string;
  const base = () => `/api/public/organizations/${orgId}/data-sources`;

  async function newOrg(name: string): Promise<string> {
    const res = await bridge.request('POST', '/api/public/organizations', {
      key: admin.key,
      body: { name },
    });
    return res.body.data.id;
  }

  async function create(body: Record<string, unknown>, org = orgId) {
    return bridge.request('POST', `/api/public/organizations/${org}/data-sources`, {
      key: admin.key,
      body,
    });
  }

  beforeAll(async () => {
    bridge = await startBridge(engine);
    admin = await bridge.newUser();
    orgId = await newOrg('CRUD Org');
  });
  afterAll(() => bridge.stop());

  describe('create', () => {
    it('answers 201 with a record that parses with the contract DataSource schema', async () => {
      const res = await create(MINIMAL);
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(['data']);
      expect(DataSource.safeParse(res.body.data).success).toBe(true);
    });

    it('returns every field of the public record (and storedSecrets), no other', async () => {
      const res = await create(MINIMAL);
      expect(Object.keys(res.body.data).sort()).toEqual(RECORD_FIELDS);
    });

    it('fills every unset optional field with null', async () => {
      const res = await create(MINIMAL);
      const ds = DataSource.parse(res.body.data);
      expect(ds).toMatchObject({
        description: null,
        databaseName: null,
        port: null,
        sshHost: null,
        sshPort: null,
        sshUsername: null,
        bigQueryProjectId: null,
        spannerInstanceId: null,
        snowflakeAccountId: null,
        snowflakeWarehouse: null,
        snowflakeRole: null,
        lastSuccessfulSyncAt: null,
        lastSyncAttemptAt: null,
        syncErrorMessage: null,
      });
    });

    it('starts with lastSyncStatus PENDING and no first sync', async () => {
      const ds = DataSource.parse((await create(MINIMAL)).body.data);
      expect(ds.lastSyncStatus).toBe('PENDING');
      expect(ds.hasCompletedFirstSync).toBe(false);
    });

    it('is neither a demo nor the service warehouse', async () => {
      const ds = DataSource.parse((await create(MINIMAL)).body.data);
      expect(ds.isDemo).toBe(false);
      expect(ds.isServiceWarehouse).toBe(false);
    });

    it('has all health fields null', async () => {
      const ds = DataSource.parse((await create(MINIMAL)).body.data);
      expect(ds.lastHealthyAt).toBeNull();
      expect(ds.lastHealthStatus).toBeNull();
      expect(ds.lastHealthCheckAttemptAt).toBeNull();
      expect(ds.healthErrorMessage).toBeNull();
    });

    it('defaults sslEnabled to true and sshEnabled to false', async () => {
      const ds = DataSource.parse((await create(MINIMAL)).body.data);
      expect(ds.sslEnabled).toBe(true);
      expect(ds.sshEnabled).toBe(false);
      expect(ds.sslCustomCertificatesEnabled).toBe(false);
    });

    it('keeps sslEnabled false when sent', async () => {
      const ds = DataSource.parse((await create({ ...MINIMAL, sslEnabled: false })).body.data);
      expect(ds.sslEnabled).toBe(false);
    });

    it('gets a ds_ id and equal createdAt and updatedAt', async () => {
      const ds = DataSource.parse((await create(MINIMAL)).body.data);
      expect(ds.id).toMatch(/^ds_/);
      expect(ds.createdAt).toBe(ds.updatedAt);
    });

    it('echoes every non-secret field sent', async () => {
      const body = {
        dialect: 'POSTGRES',
        displayName: '  Everything  ',
        description: 'All the fields',
        databaseName: 'sales',
        username: 'reader',
        host: 'pg.internal.example',
        port: 6543,
        sslEnabled: false,
        sshEnabled: true,
        sshHost: 'bastion.example.com',
        sshPort: 2222,
        sshUsername: 'tunnel',
        sshPassword: 'ssh-pw-echo-test',
        bigQueryProjectId: 'bq-project',
        spannerInstanceId: 'spanner-1',
        snowflakeAccountId: 'acct-1',
        snowflakeWarehouse: 'wh-1',
        snowflakeRole: 'role-1',
      };
      const res = await create(body);
      expect(res.status).toBe(201);
      expect(DataSource.parse(res.body.data)).toMatchObject({
        dialect: 'POSTGRES',
        displayName: 'Everything',
        description: 'All the fields',
        databaseName: 'sales',
        username: 'reader',
        host: 'pg.internal.example',
        port: 6543,
        sslEnabled: false,
        sshEnabled: true,
        sshHost: 'bastion.example.com',
        sshPort: 2222,
        sshUsername: 'tunnel',
        bigQueryProjectId: 'bq-project',
        spannerInstanceId: 'spanner-1',
        snowflakeAccountId: 'acct-1',
        snowflakeWarehouse: 'wh-1',
        snowflakeRole: 'role-1',
      });
    });

    it('lists the names of the secrets given in storedSecrets', async () => {
      const res = await create({
        ...MINIMAL,
        password: 'pw-crud-1',
        bigQueryJsonKey: '{"k":"bq-crud-1"}',
        snowflakePrivateKey: 'sf-key-crud-1',
      });
      expect([...DataSource.parse(res.body.data).storedSecrets].sort()).toEqual([
        'bigQueryJsonKey',
        'password',
        'snowflakePrivateKey',
      ]);
    });

    it('lists every secret field name when all seven are given', async () => {
      const res = await create({
        ...MINIMAL,
        password: 'pw-crud-all',
        sshPassword: 'ssh-pw-crud-all',
        sshPrivateKey: 'ssh-key-crud-all',
        sshPrivateKeyPassphrase: 'ssh-pass-crud-all',
        snowflakePrivateKey: 'sf-key-crud-all',
        snowflakePrivateKeyPassphrase: 'sf-pass-crud-all',
        bigQueryJsonKey: 'bq-crud-all',
      });
      expect([...DataSource.parse(res.body.data).storedSecrets].sort()).toEqual([
        'bigQueryJsonKey',
        'password',
        'snowflakePrivateKey',
        'snowflakePrivateKeyPassphrase',
        'sshPassword',
        'sshPrivateKey',
        'sshPrivateKeyPassphrase',
      ]);
    });

    it('has an empty storedSecrets when no secret is given', async () => {
      expect(DataSource.parse((await create(MINIMAL)).body.data).storedSecrets).toEqual([]);
    });

    it('puts no secret value anywhere in the response text', async () => {
      const secrets = {
        password: 'pw-CANARY-crud-a1',
        sshPassword: 'ssh-CANARY-crud-a2',
        sshPrivateKey: 'key-CANARY-crud-a3',
        sshPrivateKeyPassphrase: 'pass-CANARY-crud-a4',
        snowflakePrivateKey: 'sf-CANARY-crud-a5',
        snowflakePrivateKeyPassphrase: 'sfp-CANARY-crud-a6',
        bigQueryJsonKey: 'bq-CANARY-crud-a7',
      };
      const res = await create({ ...MINIMAL, ...secrets });
      expect(res.status).toBe(201);
      expect(res.text).not.toContain('CANARY');
      expect(res.body.data).not.toHaveProperty('password');
    });
  });

  describe('list', () => {
    it('walks more than two pages with limit 2, in creation order', async () => {
      const org = await newOrg('Paged Sources');
      const created: string[] = [];
      for (let i = 1; i <= 5; i++) {
        const res = await create({ ...MINIMAL, displayName: `Source ${i}` }, org);
        created.push(res.body.data.id);
      }
      const seen: string[] = [];
      const pages: { size: number; hasMore: boolean; nextCursor: string | null }[] = [];
      let cursor: string | null = null;
      do {
        const query: string = cursor ? `limit=2&cursor=${cursor}` : 'limit=2';
        const res = await bridge.request(
          'GET',
          `/api/public/organizations/${org}/data-sources?${query}`,
          { key: admin.key },
        );
        expect(res.status).toBe(200);
        const page = pageOf(DataSource).parse(res.body);
        seen.push(...page.data.map((d) => d.id));
        pages.push({ size: page.data.length, ...page.pagination });
        cursor = page.pagination.nextCursor;
      } while (cursor);
      expect(seen).toEqual(created);
      expect(pages).toEqual([
        { size: 2, hasMore: true, nextCursor: created[1] },
        { size: 2, hasMore: true, nextCursor: created[3] },
        { size: 1, hasMore: false, nextCursor: null },
      ]);
    });

    it('returns every source of the organization without a limit', async () => {
      const org = await newOrg('Unpaged Sources');
      const a = (await create({ ...MINIMAL, displayName: 'A' }, org)).body.data.id;
      const b = (await create({ ...MINIMAL, displayName: 'B' }, org)).body.data.id;
      const res = await bridge.request('GET', `/api/public/organizations/${org}/data-sources`, {
        key: admin.key,
      });
      expect(res.status).toBe(200);
      const page = pageOf(DataSource).parse(res.body);
      expect(page.data.map((d) => d.id)).toEqual([a, b]);
      expect(page.pagination).toEqual({ hasMore: false, nextCursor: null });
    });

    it('returns an empty page for an organization without sources', async () => {
      const org = await newOrg('Empty Sources');
      const res = await bridge.request('GET', `/api/public/organizations/${org}/data-sources`, {
        key: admin.key,
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: [], pagination: { hasMore: false, nextCursor: null } });
    });

    it('lists only the sources of the addressed organization', async () => {
      const other = await newOrg('Other Sources');
      const mine = (await create(MINIMAL)).body.data.id;
      const theirs = (await create(MINIMAL, other)).body.data.id;
      const res = await bridge.request('GET', `/api/public/organizations/${other}/data-sources`, {
        key: admin.key,
      });
      const ids = pageOf(DataSource)
        .parse(res.body)
        .data.map((d) => d.id);
      expect(ids).toEqual([theirs]);
      expect(ids).not.toContain(mine);
    });

    it('rejects limit 0 with 400 ValidationError on limit', async () => {
      const res = await bridge.request('GET', `${base()}?limit=0`, { key: admin.key });
      expect(res.status).toBe(400);
      expect(ErrorBody.parse(res.body).error.title).toBe('ValidationError');
      expect(res.body.error.fieldErrors).toHaveProperty('limit');
      expect(res.body.error.fieldCodes).toEqual({ limit: 'out_of_range' });
    });
  });

  describe('get', () => {
    it('returns the same record as create', async () => {
      const created = (await create({ ...MINIMAL, password: 'pw-get-1' })).body.data;
      const res = await bridge.request('GET', `${base()}/${created.id}`, { key: admin.key });
      expect(res.status).toBe(200);
      expect(DataSource.parse(res.body.data)).toEqual(created);
    });

    it('answers 404 NotFound for an unknown id', async () => {
      const res = await bridge.request('GET', `${base()}/ds_00000000000000000000000000`, {
        key: admin.key,
      });
      expect(res.status).toBe(404);
      expect(ErrorBody.parse(res.body).error.title).toBe('NotFound');
      expect(res.body.error.code).toBe('data_source_not_found');
    });
  });

  describe('update', () => {
    it('answers 200 with the updated record', async () => {
      const created = (await create(MINIMAL)).body.data;
      const res = await bridge.request('PATCH', `${base()}/${created.id}`, {
        key: admin.key,
        body: { displayName: 'Renamed', port: 5433, databaseName: 'analytics' },
      });
      expect(res.status).toBe(200);
      expect(DataSource.parse(res.body.data)).toMatchObject({
        id: created.id,
        displayName: 'Renamed',
        port: 5433,
        databaseName: 'analytics',
        host: MINIMAL.host,
      });
    });

    it('persists the update for the next GET', async () => {
      const created = (await create(MINIMAL)).body.data;
      const patched = await bridge.request('PATCH', `${base()}/${created.id}`, {
        key: admin.key,
        body: { host: 'moved.example.com' },
      });
      const res = await bridge.request('GET', `${base()}/${created.id}`, { key: admin.key });
      expect(res.body.data).toEqual(patched.body.data);
      expect(res.body.data.host).toBe('moved.example.com');
    });

    it('answers 404 NotFound for an unknown id', async () => {
      const res = await bridge.request('PATCH', `${base()}/ds_00000000000000000000000000`, {
        key: admin.key,
        body: { displayName: 'Nobody' },
      });
      expect(res.status).toBe(404);
      expect(ErrorBody.parse(res.body).error.title).toBe('NotFound');
      expect(res.body.error.code).toBe('data_source_not_found');
    });
  });

  describe('delete', () => {
    it('returns the deleted record', async () => {
      const created = (await create({ ...MINIMAL, password: 'pw-del-1' })).body.data;
      const res = await bridge.request('DELETE', `${base()}/${created.id}`, { key: admin.key });
      expect(res.status).toBe(200);
      expect(DataSource.parse(res.body.data)).toEqual(created);
    });

    it('makes the next GET answer 404 NotFound', async () => {
      const created = (await create(MINIMAL)).body.data;
      await bridge.request('DELETE', `${base()}/${created.id}`, { key: admin.key });
      const res = await bridge.request('GET', `${base()}/${created.id}`, { key: admin.key });
      expect(res.status).toBe(404);
      expect(ErrorBody.parse(res.body).error.title).toBe('NotFound');
      expect(res.body.error.code).toBe('data_source_not_found');
    });

    it('makes the next DELETE answer 404 NotFound', async () => {
      const created = (await create(MINIMAL)).body.data;
      await bridge.request('DELETE', `${base()}/${created.id}`, { key: admin.key });
      const res = await bridge.request('DELETE', `${base()}/${created.id}`, { key: admin.key });
      expect(res.status).toBe(404);
      expect(ErrorBody.parse(res.body).error.title).toBe('NotFound');
      expect(res.body.error.code).toBe('data_source_not_found');
    });

    it('makes the next PATCH answer 404 NotFound', async () => {
      const created = (await create(MINIMAL)).body.data;
      await bridge.request('DELETE', `${base()}/${created.id}`, { key: admin.key });
      const res = await bridge.request('PATCH', `${base()}/${created.id}`, {
        key: admin.key,
        body: { displayName: 'Ghost' },
      });
      expect(res.status).toBe(404);
      expect(ErrorBody.parse(res.body).error.title).toBe('NotFound');
      expect(res.body.error.code).toBe('data_source_not_found');
    });

    it('removes the record from the list', async () => {
      const org = await newOrg('Delete From List');
      const keep = (await create(MINIMAL, org)).body.data.id;
      const drop = (await create(MINIMAL, org)).body.data.id;
      await bridge.request('DELETE', `/api/public/organizations/${org}/data-sources/${drop}`, {
        key: admin.key,
      });
      const res = await bridge.request('GET', `/api/public/organizations/${org}/data-sources`, {
        key: admin.key,
      });
      expect(res.body.data.map((d: DataSource) => d.id)).toEqual([keep]);
    });
  });
});
