import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Organization, pageOf } from '@bridgekit/contract';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ENGINES,
  type ServedBridge,
  serveBridge,
  startBridge,
  type TestBridge,
} from '../../../test/support/bridge';
import { claimsFor, signHs256 } from '../sso/support';

const OrgPage = pageOf(Organization);

/**
 * The organization list is served from serialized pages cached under the store version. These
 * tests change the data behind the cache's back (another instance, another connection, raw
 * SQL) and expect the very next list to show it: the cache must be exact, never time-based.
 */
describe.each(ENGINES)('organization list cache on %s', (engine) => {
  let bridge: TestBridge;
  let other: ServedBridge;
  let user: { key: string; userId: string; email: string };
  let orgId: string;
  let jwtSecret: string;

  /** Out-of-band SQL on the same store, as another process (psql, sqlite3) would run it. */
  async function rawSql(text: string, params: unknown[]) {
    if (engine === 'sqlite') {
      const file = new SQLite(path.join(bridge.dataDir, 'bridge.db'));
      try {
        file.prepare(text.replace(/\$\d+/g, '?')).run(...params);
      } finally {
        file.close();
      }
      return;
    }
    const client = new pg.Client({ connectionString: bridge.databaseUrl });
    await client.connect();
    try {
      await client.query(text, params);
    } finally {
      await client.end();
    }
  }

  const list = async (key: string, query = '') => {
    const res = await bridge.request('GET', `/api/public/organizations${query}`, { key });
    expect(res.status).toBe(200);
    return OrgPage.parse(res.body);
  };

  beforeAll(async () => {
    bridge = await startBridge(engine);
    // A second instance on the same store: a second process behind a load balancer.
    other = await serveBridge({
      BRIDGE_DATA_DIR: bridge.dataDir,
      DATABASE_URL: bridge.databaseUrl,
      BRIDGE_SECRET_KEY: bridge.deps.config.secretKey,
      BRIDGE_SESSION_SECRET: bridge.deps.config.sessionSecret,
    });
    user = await bridge.newUser();
    const created = await bridge.request('POST', '/api/public/organizations?include=jwtSecret', {
      key: user.key,
      body: { name: 'Cached One' },
    });
    expect(created.status).toBe(201);
    orgId = created.body.data.id;
    jwtSecret = created.body.data.jwtSecret;
  });
  afterAll(async () => {
    await other?.close();
    await bridge?.stop();
  });

  it('serves the same page twice, byte for byte', async () => {
    const a = await bridge.request('GET', '/api/public/organizations', { key: user.key });
    const b = await bridge.request('GET', '/api/public/organizations', { key: user.key });
    expect(b.text).toBe(a.text);
    expect(b.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(b.headers.get('content-length')).toBe(String(Buffer.byteLength(b.text)));
  });

  it('shows an organization created through another instance on the next list', async () => {
    expect((await list(user.key)).data.map((o) => o.name)).toEqual(['Cached One']);
    const res = await other.request('POST', '/api/public/organizations', {
      key: user.key,
      body: { name: 'Made Elsewhere' },
    });
    expect(res.status).toBe(201);
    expect((await list(user.key)).data.map((o) => o.name).sort()).toEqual([
      'Cached One',
      'Made Elsewhere',
    ]);
  });

  it('shows a rename made with raw SQL on another connection on the next list', async () => {
    await list(user.key);
    await rawSql('update organizations set name = $1 where id = $2', ['Renamed Raw', orgId]);
    expect((await list(user.key)).data.find((o) => o.id === orgId)?.name).toBe('Renamed Raw');
  });

  it('drops an organization from the list when the membership is removed elsewhere', async () => {
    const before = await list(user.key);
    const gone = before.data.find((o) => o.name === 'Made Elsewhere');
    expect(gone).toBeDefined();
    await rawSql('delete from members where organization_id = $1 and user_id = $2', [
      gone?.id,
      user.userId,
    ]);
    expect((await list(user.key)).data.map((o) => o.id)).toEqual([orgId]);
  });

  it('keeps pages apart by caller, page and limit', async () => {
    const stranger = await bridge.newUser();
    expect((await list(stranger.key)).data).toEqual([]);
    for (let i = 0; i < 3; i++) {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: user.key,
        body: { name: `Paged ${i} ${randomBytes(3).toString('hex')}` },
      });
      expect(res.status).toBe(201);
    }
    const all = await list(user.key);
    const first = await list(user.key, '?limit=2');
    expect(first.data.map((o) => o.id)).toEqual(all.data.slice(0, 2).map((o) => o.id));
    const second = await list(user.key, `?limit=2&cursor=${first.pagination.nextCursor}`);
    expect(second.data.map((o) => o.id)).toEqual(all.data.slice(2, 4).map((o) => o.id));
    expect((await list(stranger.key)).data).toEqual([]);
  });

  it('never serves a cached page without secrets to include=jwtSecret', async () => {
    await list(user.key);
    const withSecret = await list(user.key, '?include=jwtSecret');
    expect(withSecret.data.find((o) => o.id === orgId)?.jwtSecret).toBe(jwtSecret);
    expect((await list(user.key)).data.every((o) => o.jwtSecret === undefined)).toBe(true);
  });

  it('gives an embed session of the same user only its organization', async () => {
    expect((await list(user.key)).data.length).toBeGreaterThan(1);
    const jwt = await signHs256(claimsFor(orgId, { email: user.email }), jwtSecret);
    const exchanged = await bridge.request('POST', '/api/sso/jwt', { body: { jwt } });
    expect(exchanged.status).toBe(200);
    const res = await bridge.request('GET', '/api/public/organizations', {
      headers: { authorization: `Bearer ${exchanged.body.data.sessionToken}` },
    });
    expect(res.status).toBe(200);
    expect(OrgPage.parse(res.body).data.map((o) => o.id)).toEqual([orgId]);
  });
});
