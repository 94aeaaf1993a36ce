import { DataSource } from '@bridgekit/contract';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';

const FULL = {
  dialect: 'POSTGRES',
  displayName: 'Full Source',
  description: 'Has everything',
  databaseName: 'sales',
  username: 'reader',
  host: 'pg.example.com',
  port: 6543,
  sslEnabled: true,
  sshEnabled: true,
  sshHost: 'bastion.example.com',
  sshPort: 2222,
  sshUsername: 'tunnel',
  bigQueryProjectId: 'bq-project',
  spannerInstanceId: 'spanner-1',
  snowflakeAccountId: 'acct-1',
  snowflakeWarehouse: 'wh-1',
  snowflakeRole: 'role-1',
  password: 'pw-patch-orig',
  sshPassword: 'ssh-pw-patch-orig',
  sshPrivateKey: 'ssh-key-patch-orig',
  sshPrivateKeyPassphrase: 'ssh-pass-patch-orig',
  snowflakePrivateKey: 'sf-key-patch-orig',
  snowflakePrivateKeyPassphrase: 'sf-pass-patch-orig',
  bigQueryJsonKey: 'bq-patch-orig',
};
const UNSET_PAIRS = [
  ['unsetPassword', 'password', 'passwordSealed'],
  ['unsetSshPassword', 'sshPassword', 'sshPasswordSealed'],
  ['unsetSshPrivateKey', 'sshPrivateKey', 'sshPrivateKeySealed'],
  ['unsetSshPrivateKeyPassphrase', 'sshPrivateKeyPassphrase', 'sshPrivateKeyPassphraseSealed'],
] as const;
const NULLABLE_SECRETS = [
  ['password', 'passwordSealed'],
  ['sshPassword', 'sshPasswordSealed'],
  ['sshPrivateKey', 'sshPrivateKeySealed'],
  ['sshPrivateKeyPassphrase', 'sshPrivateKeyPassphraseSealed'],
  ['bigQueryJsonKey', 'bigQueryJsonKeySealed'],
] as const;
const ALL_SECRETS = [
  'bigQueryJsonKey',
  'password',
  'snowflakePrivateKey',
  'snowflakePrivateKeyPassphrase',
  'sshPassword',
  'sshPrivateKey',
  'sshPrivateKeyPassphrase',
];

describe.each(ENGINES)('data source PATCH semantics on %s', (engine) => {
  let bridge: TestBridge;
  let admin: { key: string };
  let orgId: string;
  const base = () => `/api/public/organizations/${orgId}/data-sources`;

  async function create(body: Record<string, unknown> = FULL): Promise<DataSource> {
    const res = await bridge.request('POST', base(), { key: admin.key, body });
    expect(res.status).toBe(201);
    return DataSource.parse(res.body.data);
  }
  async function patch(id: string, body: Record<string, unknown>): Promise<DataSource> {
    const res = await bridge.request('PATCH', `${base()}/${id}`, { key: admin.key, body });
    expect(res.status).toBe(200);
    return DataSource.parse(res.body.data);
  }
  const row = (id: string) =>
    bridge.deps.store.db
      .selectFrom('dataSources')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  beforeAll(async () => {
    bridge = await startBridge(engine);
    admin = await bridge.newUser();
    orgId = (
      await bridge.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: { name: 'Patch Org' },
      })
    ).body.data.id;
  });
  afterAll(() => bridge.stop());
  afterEach(() => {
    vi.useRealTimers();
  });

  describe('omitted fields', () => {
    it('leaves every omitted field unchanged', async () => {
      const before = await create();
      const after = await patch(before.id, { displayName: 'Only The Name' });
      expect({ ...after, displayName: before.displayName, updatedAt: before.updatedAt }).toEqual(
        before,
      );
    });

    it('leaves sslEnabled true when omitted (deviation from the reference default false)', async () => {
      const before = await create({ ...FULL, sslEnabled: true });
      expect((await patch(before.id, { port: 5433 })).sslEnabled).toBe(true);
    });

    it('leaves sslEnabled false when omitted', async () => {
      const before = await create({ ...FULL, sslEnabled: false });
      expect((await patch(before.id, { port: 5433 })).sslEnabled).toBe(false);
    });

    it('leaves sshEnabled true when omitted', async () => {
      const before = await create({ ...FULL, sshEnabled: true });
      expect((await patch(before.id, { port: 5433 })).sshEnabled).toBe(true);
    });

    it('turns sslEnabled off when sent false', async () => {
      const before = await create();
      expect((await patch(before.id, { sslEnabled: false })).sslEnabled).toBe(false);
    });

    it('turns sshEnabled off when sent false', async () => {
      const before = await create();
      expect((await patch(before.id, { sshEnabled: false })).sshEnabled).toBe(false);
    });

    it('leaves every stored secret untouched by a patch that keeps the target', async () => {
      const before = await create();
      const sealedBefore = await row(before.id);
      // The database and username change; where the credentials go does not (moved-secrets.test).
      await patch(before.id, { databaseName: 'otherdb', username: 'other-user' });
      const sealedAfter = await row(before.id);
      const unrelated = { databaseName: null, username: null, updatedAt: null };
      expect({ ...sealedAfter, ...unrelated }).toEqual({ ...sealedBefore, ...unrelated });
    });

    it('changes only updatedAt with an empty patch', async () => {
      const before = await create();
      const after = await patch(before.id, {});
      expect({ ...after, updatedAt: before.updatedAt }).toEqual(before);
    });
  });

  describe('secrets', () => {
    it.each(NULLABLE_SECRETS)('leaves %s unchanged when sent null', async (field, column) => {
      const before = await create();
      const sealedBefore = (await row(before.id))[column];
      const after = await patch(before.id, { [field]: null });
      expect(after.storedSecrets).toEqual(before.storedSecrets);
      expect((await row(before.id))[column]).toBe(sealedBefore);
    });

    it.each(UNSET_PAIRS)('clears the secret with %s', async (flag, field, column) => {
      // SSH off, so clearing an SSH credential leaves a valid record.
      const before = await create({ ...FULL, sshEnabled: false });
      const after = await patch(before.id, { [flag]: true });
      expect(after.storedSecrets).not.toContain(field);
      expect([...after.storedSecrets].sort()).toEqual(ALL_SECRETS.filter((f) => f !== field));
      expect((await row(before.id))[column]).toBeNull();
    });

    it.each(UNSET_PAIRS)('keeps the secret with %s false', async (flag, field) => {
      const before = await create();
      expect((await patch(before.id, { [flag]: false })).storedSecrets).toContain(field);
    });

    it.each(UNSET_PAIRS)('keeps the secret with %s null', async (flag, field) => {
      const before = await create();
      expect((await patch(before.id, { [flag]: null })).storedSecrets).toContain(field);
    });

    it.each(UNSET_PAIRS)('clears with %s when the value is sent null', async (flag, field) => {
      const before = await create({ ...FULL, sshEnabled: false });
      const after = await patch(before.id, { [field]: null, [flag]: true });
      expect(after.storedSecrets).not.toContain(field);
    });

    it('accepts an unset flag for a secret that is not stored', async () => {
      const before = await create({
        dialect: 'POSTGRES',
        displayName: 'No Secrets',
        host: 'h.example.com',
        username: 'u',
      });
      expect((await patch(before.id, { unsetPassword: true })).storedSecrets).toEqual([]);
    });

    it.each(NULLABLE_SECRETS)('replaces %s with a new value', async (field, column) => {
      const before = await create();
      const sealedBefore = (await row(before.id))[column];
      const after = await patch(before.id, { [field]: `new-${field}-value` });
      const sealedAfter = (await row(before.id))[column];
      expect(after.storedSecrets).toEqual(before.storedSecrets);
      expect(sealedAfter).not.toBe(sealedBefore);
      expect(bridge.deps.secretBox.open(sealedAfter as string, before.id, field)).toBe(
        `new-${field}-value`,
      );
    });

    it('replaces snowflakePrivateKey with a new value', async () => {
      const before = await create();
      await patch(before.id, { snowflakePrivateKey: 'new-sf-key' });
      const sealed = (await row(before.id)).snowflakePrivateKeySealed as string;
      expect(bridge.deps.secretBox.open(sealed, before.id, 'snowflakePrivateKey')).toBe(
        'new-sf-key',
      );
    });

    it('re-seals even when the new value equals the old one (fresh nonce)', async () => {
      const before = await create();
      const sealedBefore = (await row(before.id)).passwordSealed;
      await patch(before.id, { password: FULL.password });
      expect((await row(before.id)).passwordSealed).not.toBe(sealedBefore);
    });

    it('adds a secret that was not stored', async () => {
      const before = await create({
        dialect: 'POSTGRES',
        displayName: 'Adds Password',
        host: 'h.example.com',
        username: 'u',
      });
      expect((await patch(before.id, { password: 'pw-added' })).storedSecrets).toEqual([
        'password',
      ]);
    });

    it('leaves the other secrets untouched when one is unset', async () => {
      const before = await create({ ...FULL, sshEnabled: false });
      const sealedBefore = await row(before.id);
      await patch(before.id, { unsetPassword: true });
      const sealedAfter = await row(before.id);
      expect(sealedAfter.sshPasswordSealed).toBe(sealedBefore.sshPasswordSealed);
      expect(sealedAfter.bigQueryJsonKeySealed).toBe(sealedBefore.bigQueryJsonKeySealed);
      expect(sealedAfter.snowflakePrivateKeySealed).toBe(sealedBefore.snowflakePrivateKeySealed);
    });
  });

  describe('nullable fields', () => {
    it('clears databaseName with null', async () => {
      const before = await create();
      expect((await patch(before.id, { databaseName: null })).databaseName).toBeNull();
    });

    it('keeps the cleared databaseName for the next GET', async () => {
      const before = await create();
      await patch(before.id, { databaseName: null });
      const res = await bridge.request('GET', `${base()}/${before.id}`, { key: admin.key });
      expect(res.body.data.databaseName).toBeNull();
    });

    it('clears description with null', async () => {
      const before = await create();
      expect((await patch(before.id, { description: null })).description).toBeNull();
    });
  });

  describe('timestamps', () => {
    it('moves updatedAt forward and keeps createdAt', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date('2031-03-04T05:06:07.000Z'));
      const before = await create();
      vi.setSystemTime(new Date('2031-03-04T05:07:08.009Z'));
      const after = await patch(before.id, { port: 5434 });
      expect(before.createdAt).toBe('2031-03-04T05:06:07.000Z');
      expect(after.createdAt).toBe('2031-03-04T05:06:07.000Z');
      expect(after.updatedAt).toBe('2031-03-04T05:07:08.009Z');
    });

    it('keeps updatedAt when the patch is rejected', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date('2031-03-05T00:00:00.000Z'));
      const before = await create();
      vi.setSystemTime(new Date('2031-03-05T00:01:00.000Z'));
      await bridge.request('PATCH', `${base()}/${before.id}`, {
        key: admin.key,
        body: { sshHost: '' },
      });
      const res = await bridge.request('GET', `${base()}/${before.id}`, { key: admin.key });
      expect(res.body.data.updatedAt).toBe('2031-03-05T00:00:00.000Z');
    });
  });
});
