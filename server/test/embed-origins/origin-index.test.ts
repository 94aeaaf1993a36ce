import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Migrator } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPgDatabase,
  ENGINES,
  startBridge,
  type TestBridge,
} from '../../../test/support/bridge';
import { createOriginPolicy, OriginIndex } from '../../src/embed-origins';
import { allowingPatterns } from '../../src/embed-origins/origin-index';
import { openStore, type Store } from '../../src/store/db';
import { migrations } from '../../src/store/migrations';
import { createOrg } from '../sso/support';

// SQLite and PostgreSQL, less what BRIDGEKIT_ENGINES leaves out.
const ON = (['sqlite', 'postgres'] as const).filter((engine) => ENGINES.includes(engine));

describe('OriginIndex', () => {
  const index = new OriginIndex([
    'https://app.example.com',
    'https://*.tenants.example.com',
    'https://admin.example.org:8443',
    'https://*.ports.example.org:9000',
    'http://localhost:3000',
  ]);

  it('allows an exact origin', () => {
    expect(index.allows('https://app.example.com')).toBe(true);
  });

  it('refuses a sibling of an exact origin', () => {
    expect(index.allows('https://www.example.com')).toBe(false);
  });

  it('allows a subdomain under a wildcard, however deep', () => {
    expect(index.allows('https://acme.tenants.example.com')).toBe(true);
    expect(index.allows('https://a.b.tenants.example.com')).toBe(true);
  });

  it('refuses the apex of a wildcard', () => {
    expect(index.allows('https://tenants.example.com')).toBe(false);
  });

  it('refuses a host that only ends with the wildcard domain, without a dot boundary', () => {
    expect(index.allows('https://eviltenants.example.com')).toBe(false);
  });

  it('allows an exact origin only on its port', () => {
    expect(index.allows('https://admin.example.org:8443')).toBe(true);
    expect(index.allows('https://admin.example.org')).toBe(false);
  });

  it('allows a wildcard only on its port', () => {
    expect(index.allows('https://x.ports.example.org:9000')).toBe(true);
    expect(index.allows('https://x.ports.example.org')).toBe(false);
  });

  it('treats the default port as no port', () => {
    expect(index.allows('https://app.example.com:443')).toBe(true);
  });

  it('refuses http:// of an https origin and https:// of an http one', () => {
    expect(index.allows('http://app.example.com')).toBe(false);
    expect(index.allows('http://acme.tenants.example.com')).toBe(false);
    expect(index.allows('https://localhost:3000')).toBe(false);
  });

  it('refuses null and anything that is not a plain origin', () => {
    for (const origin of ['null', '', 'https://app.example.com/path', 'app.example.com']) {
      expect(index.allows(origin)).toBe(false);
    }
  });

  it('ignores stored entries that are not normalized patterns', () => {
    const odd = new OriginIndex(['HTTPS://APP.EXAMPLE.COM', 'https://*.', 'not an origin']);
    expect(odd.allows('https://app.example.com')).toBe(false);
  });
});

describe('allowingPatterns', () => {
  it('is the origin, then a wildcard over each domain above its host', () => {
    expect(allowingPatterns('https://a.b.example.com')).toEqual([
      'https://a.b.example.com',
      'https://*.b.example.com',
      'https://*.example.com',
      'https://*.com',
    ]);
  });

  it('keeps a non-default port on every pattern and normalizes the origin first', () => {
    expect(allowingPatterns('HTTPS://App.Example.com:8443')).toEqual([
      'https://app.example.com:8443',
      'https://*.example.com:8443',
      'https://*.com:8443',
    ]);
    expect(allowingPatterns('https://app.example.com:443')).toEqual([
      'https://app.example.com',
      'https://*.example.com',
      'https://*.com',
    ]);
  });

  it('is the origin alone for a host without a dot', () => {
    expect(allowingPatterns('http://localhost:3000')).toEqual(['http://localhost:3000']);
  });

  it.each(['null', '', 'https://*.example.com', 'https://app.example.com/path', 'not an origin'])(
    'is empty for %j',
    (origin) => {
      expect(allowingPatterns(origin)).toEqual([]);
    },
  );
});

describe.each(ENGINES)('a preflight without an organization in the path on %s', (engine) => {
  let bridge: TestBridge;
  let owner: { key: string };
  let orgId: string;

  beforeAll(async () => {
    bridge = await startBridge(engine);
    owner = await bridge.newUser();
    orgId = (await createOrg(bridge, owner.key, { embedAllowedOrigins: ['https://a.example.com'] }))
      .id;
  });
  afterAll(() => bridge.stop());

  const preflight = (origin: string) =>
    bridge.request('OPTIONS', '/api/sso/jwt', {
      headers: { origin, 'access-control-request-method': 'POST' },
    });
  const setOrigins = (origins: string[]) =>
    bridge.deps.store.db
      .updateTable('organizations')
      .set({ embedAllowedOrigins: JSON.stringify(origins) })
      .where('id', '=', orgId)
      .execute();

  it('allows an origin as soon as a new organization allows it', async () => {
    expect((await preflight('https://new.example.net')).status).toBe(403);
    await createOrg(bridge, owner.key, { embedAllowedOrigins: ['https://new.example.net'] });
    const res = await preflight('https://new.example.net');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://new.example.net');
  });

  it("allows an origin as soon as an organization's list gains it", async () => {
    expect((await preflight('https://x.added.example.com')).status).toBe(403);
    await setOrigins(['https://a.example.com', 'https://*.added.example.com']);
    expect((await preflight('https://x.added.example.com')).status).toBe(204);
  });

  it('allows a subdomain under a stored wildcard but never its apex', async () => {
    await createOrg(bridge, owner.key, { embedAllowedOrigins: ['https://*.wild.example.com'] });
    expect((await preflight('https://a.b.wild.example.com')).status).toBe(204);
    expect((await preflight('https://wild.example.com')).status).toBe(403);
    expect((await preflight('https://evilwild.example.com')).status).toBe(403);
    expect((await preflight('http://a.wild.example.com')).status).toBe(403);
  });

  it('keeps a pattern two organizations share until the last of them drops it', async () => {
    const shared = ['https://shared.example.com'];
    const first = await createOrg(bridge, owner.key, { embedAllowedOrigins: shared });
    const second = await createOrg(bridge, owner.key, { embedAllowedOrigins: shared });
    const remove = async (id: string) =>
      expect(
        (await bridge.request('DELETE', `/api/public/organizations/${id}`, { key: owner.key }))
          .status,
      ).toBe(200);
    await remove(first.id);
    expect((await preflight('https://shared.example.com')).status).toBe(204);
    await remove(second.id);
    const res = await preflight('https://shared.example.com');
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('origin_not_allowed');
  });

  it("refuses an origin as soon as an organization's list drops it", async () => {
    await setOrigins(['https://a.example.com']);
    expect((await preflight('https://a.example.com')).status).toBe(204);
    await setOrigins([]);
    const res = await preflight('https://a.example.com');
    expect(res.status).toBe(403);
    expect(res.body.error.title).toBe('Forbidden');
    expect(res.body.error.code).toBe('origin_not_allowed');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe.each(ON)("the index of every organization's patterns on %s, migrating", (engine) => {
  let store: Store;
  let dataDir: string;
  let database: Awaited<ReturnType<typeof createPgDatabase>> | undefined;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-origins-'));
    database = engine === 'postgres' ? await createPgDatabase() : undefined;
    store = openStore({ dataDir, databaseUrl: database?.url, poolSize: 1 });
  });
  afterAll(async () => {
    await store.close();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('holds the patterns of organizations stored before the migration that adds it', async () => {
    const provider = { getMigrations: async () => migrations(engine) };
    // biome-ignore lint/suspicious/noExplicitAny: the migrator runs on an untyped database.
    const migrator = new Migrator({ db: store.db as any, provider });
    const before = await migrator.migrateTo('0010_sso_write_functions');
    expect(before.error).toBeUndefined();
    const org = (id: string, origins: string[]) => ({
      id,
      name: id,
      slug: id,
      customAiContext: null,
      onboardingStatus: 'COMPLETED',
      fullEmbedEnabled: 0,
      embedAllowedOrigins: JSON.stringify(origins),
      jwtSecretSealed: 'sealed',
      previousJwtSecretSealed: null,
      previousJwtSecretExpiresAt: null,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    });
    await store.db
      .insertInto('organizations')
      .values([
        org('org_a', ['https://a.example.com', 'https://*.tenants.example.com']),
        org('org_b', ['https://a.example.com']),
        org('org_c', []),
      ])
      .execute();
    const after = await migrator.migrateToLatest();
    expect(after.error).toBeUndefined();
    expect(after.results?.map((r) => r.migrationName)).toContain('0011_embed_origin_patterns');

    const rows = await store.db
      .selectFrom('embedOriginPatterns')
      .select(['pattern', 'organizationId'])
      .orderBy('organizationId')
      .orderBy('pattern')
      .execute();
    expect(rows).toEqual([
      { pattern: 'https://*.tenants.example.com', organizationId: 'org_a' },
      { pattern: 'https://a.example.com', organizationId: 'org_a' },
      { pattern: 'https://a.example.com', organizationId: 'org_b' },
    ]);
    const policy = createOriginPolicy({ store });
    expect(await policy.anyOrgAllows('https://x.tenants.example.com')).toBe(true);
    expect(await policy.anyOrgAllows('https://a.example.com')).toBe(true);
    expect(await policy.anyOrgAllows('https://b.example.com')).toBe(false);
  });

  it('follows a list that changes, and a row written with the list unchanged', async () => {
    const policy = createOriginPolicy({ store });
    await store.db
      .updateTable('organizations')
      .set({ embedAllowedOrigins: JSON.stringify(['https://b.example.com']) })
      .where('id', '=', 'org_a')
      .execute();
    expect(await policy.anyOrgAllows('https://x.tenants.example.com')).toBe(false);
    expect(await policy.anyOrgAllows('https://b.example.com')).toBe(true);
    // org_b still lists it.
    expect(await policy.anyOrgAllows('https://a.example.com')).toBe(true);
    await store.db.updateTable('organizations').set({ name: 'renamed' }).execute();
    const patterns = await store.db
      .selectFrom('embedOriginPatterns')
      .select('pattern')
      .orderBy('pattern')
      .execute();
    expect(patterns.map((p) => p.pattern)).toEqual([
      'https://a.example.com',
      'https://b.example.com',
    ]);
  });
});
