import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';
import type { Deps } from '../../src/deps';
import { rotateSecrets } from '../../src/domain/rotate-secrets';
import { createSecretBox } from '../../src/domain/secret-box';
import { newSecretKey, type OpenedBridge, openBridge } from './support';

const BODY = {
  dialect: 'POSTGRES',
  displayName: 'Rotated While Patched',
  host: 'h.example.com',
  username: 'u',
  password: 'pw-before-rotation',
};

/**
 * Rotation re-reads nothing between its batch read and its writes. These tests change a row
 * in exactly that gap, through a second bridge that already runs with the new key.
 */
describe.each(STORE_ENGINES)('secrets rotate next to a running bridge on %s', (engine) => {
  const k1 = newSecretKey();
  const k2 = newSecretKey();
  let old: TestBridge;
  let current: OpenedBridge;
  let admin: { key: string };
  let orgId: string;

  /** Deps for rotateSecrets (K2 current, K1 previous) that run `during` once the rows are read. */
  function rotationDeps(during: () => Promise<void>): Deps {
    let fired = false;
    const hook: KyselyPlugin = {
      transformQuery: (args) => args.node,
      async transformResult(args) {
        const rows = args.result.rows as Record<string, unknown>[];
        if (!fired && rows.some((r) => 'passwordSealed' in r || 'password_sealed' in r)) {
          fired = true;
          await during();
        }
        return args.result;
      },
    };
    return {
      ...old.deps,
      secretBox: createSecretBox(Buffer.from(k2, 'base64'), Buffer.from(k1, 'base64')),
      keyChecks: current.deps.keyChecks,
      store: { ...old.deps.store, db: old.deps.store.db.withPlugin(hook) },
    };
  }
  async function createSource(): Promise<string> {
    const res = await old.request('POST', `/api/public/organizations/${orgId}/data-sources`, {
      key: admin.key,
      body: BODY,
    });
    expect(res.status).toBe(201);
    return res.body.data.id;
  }
  const patchOnCurrent = (id: string, body: unknown) => async () => {
    const res = await current.request(
      'PATCH',
      `/api/public/organizations/${orgId}/data-sources/${id}`,
      { key: admin.key, body },
    );
    expect(res.status).toBe(200);
  };
  const passwordSealed = async (id: string) =>
    (
      await current.deps.store.db
        .selectFrom('dataSources')
        .select('passwordSealed')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).passwordSealed;

  beforeAll(async () => {
    old = await startBridge(engine, { BRIDGE_SECRET_KEY: k1 });
    current = await openBridge({
      dataDir: old.dataDir,
      databaseUrl: old.databaseUrl,
      secretKey: k2,
      previousKey: k1,
      // The store's session secret: another one is refused at start.
      sessionSecret: old.deps.config.sessionSecret as string,
    });
    admin = await old.newUser();
    orgId = (
      await old.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: { name: 'Concurrent Rotation' },
      })
    ).body.data.id;
  });
  afterAll(async () => {
    await current?.stop();
    await old?.stop();
  });

  it('keeps a password changed between its read and its write', async () => {
    const id = await createSource();
    await rotateSecrets(rotationDeps(patchOnCurrent(id, { password: 'pw-changed-meanwhile' })));
    const sealed = await passwordSealed(id);
    expect(current.deps.secretBox.open(sealed as string, id, 'password')).toBe(
      'pw-changed-meanwhile',
    );
  });

  it('keeps a password unset between its read and its write unset', async () => {
    const id = await createSource();
    await rotateSecrets(rotationDeps(patchOnCurrent(id, { unsetPassword: true })));
    expect(await passwordSealed(id)).toBeNull();
  });
});
