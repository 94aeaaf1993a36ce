import { SignJWT } from 'jose';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase } from '../support/bridge';
import { type BridgeData, newBridgeData, removeBridgeData } from '../support/bridge-data';
import { type BridgeProcess, buildBridge, startBridgeProcess } from '../support/bridge-process';
import { buildPreviousRelease, type PreviousRelease } from './previous-release';
import { adminWithOrg, call, jsonLines } from './support';

/** The release before this one: the commit this work started from. */
const PREVIOUS = 'f2e1742';

async function signIn(base: string, orgId: string, jwtSecret: string, email: string) {
  const jwt = await new SignJWT({ email, orgId })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(jwtSecret));
  const res = await fetch(`${base}/api/sso/jwt`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jwt }),
  });
  const body = (await res.json()) as { data: { sessionToken: string } };
  if (res.status !== 200) throw new Error(`sign-in: ${res.status} ${JSON.stringify(body)}`);
  return body.data.sessionToken;
}

const asSession = (base: string, token: string, orgId: string) =>
  call(base, token, 'GET', `/api/public/organizations/${orgId}`).then((r) => r.status);

describe('a rolling upgrade from the previous release, and back', () => {
  let previous: PreviousRelease;
  let database: Awaited<ReturnType<typeof createPgDatabase>>;
  let data: BridgeData;
  let old: BridgeProcess;
  let next: BridgeProcess;
  let admin: Awaited<ReturnType<typeof adminWithOrg>>;
  let oldSession: string;
  let newSession: string;

  beforeAll(async () => {
    [previous, database] = await Promise.all([
      buildPreviousRelease(PREVIOUS),
      createPgDatabase(),
      buildBridge(),
    ]);
    data = newBridgeData(database.url);
    old = await startBridgeProcess({ data, bundle: previous.bundle });
    admin = await adminWithOrg(data, old.url);
    oldSession = await signIn(old.url, admin.orgId, admin.jwtSecret, 'before@example.com');
    // The new release joins the fleet on the same database while the old one serves.
    next = await startBridgeProcess({ data });
    newSession = await signIn(next.url, admin.orgId, admin.jwtSecret, 'after@example.com');
  }, 240_000);
  afterAll(async () => {
    await old?.stop();
    await next?.stop();
    removeBridgeData(data);
    await database?.drop();
    previous?.remove();
  });

  it("accepts the previous release's session on the new release (no log-out mid-rollout)", async () => {
    expect(await asSession(next.url, oldSession, admin.orgId)).toBe(200);
  });

  it("and the new release's session on the previous one (a rollback keeps sessions too)", async () => {
    expect(await asSession(old.url, newSession, admin.orgId)).toBe(200);
  });

  it('serves one set of data from both versions', async () => {
    const a = await call(old.url, admin.key, 'POST', '/api/public/organizations', { name: 'Old' });
    const b = await call(next.url, admin.key, 'POST', '/api/public/organizations', { name: 'New' });
    expect([a.status, b.status]).toEqual([201, 201]);
    for (const base of [old.url, next.url]) {
      const list = await call(base, admin.key, 'GET', '/api/public/organizations');
      const ids = list.body.data.map((o: { id: string }) => o.id);
      expect(ids).toEqual(expect.arrayContaining([admin.orgId, a.body.data.id, b.body.data.id]));
    }
  });

  describe('rollback', () => {
    let refused: { code: number | null; stderr: string };
    let restarted: BridgeProcess;

    beforeAll(async () => {
      await old.stop();
      await next.stop();
      // An older build refuses a store that a newer one migrated.
      const again = await startBridgeProcess({ data, bundle: previous.bundle, ready: 'none' });
      refused = { code: (await again.exited).code, stderr: again.stderr() };
      // The documented way back for this release: undo its migrations (new tables only).
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      await client.query(
        "begin; delete from kysely_migration where name in ('0015_key_checks', '0017_webhooks', '0020_api_key_hit_without_version'); drop table key_checks, webhook_deliveries, webhook_events, webhook_endpoints; commit",
      );
      await client.end();
      restarted = await startBridgeProcess({ data, bundle: previous.bundle });
    }, 120_000);
    afterAll(async () => {
      await restarted?.stop();
    });

    it('the previous release refuses the upgraded store at start, naming the migration it lacks', () => {
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('0015_key_checks');
    });

    it('after undoing 0015, 0017 and 0020 it starts, with the data and both sessions', async () => {
      expect(await asSession(restarted.url, oldSession, admin.orgId)).toBe(200);
      expect(await asSession(restarted.url, newSession, admin.orgId)).toBe(200);
      const list = await call(restarted.url, admin.key, 'GET', '/api/public/organizations');
      expect(list.body.data.map((o: { name: string }) => o.name)).toEqual(
        expect.arrayContaining(['Old', 'New']),
      );
    });

    it('and the new release, started again, records the key checks afresh', async () => {
      await restarted.stop();
      const upgraded = await startBridgeProcess({ data, env: { LOG_LEVEL: 'info' } });
      // The log is written in batches: wait for the line rather than read at once.
      await upgraded.waitForOutput('migrations applied', 10_000);
      const applied = jsonLines(upgraded.stdout()).find((l) => l.msg === 'migrations applied');
      expect(applied?.applied).toEqual([
        '0015_key_checks',
        '0017_webhooks',
        '0020_api_key_hit_without_version',
      ]);
      expect(await asSession(upgraded.url, oldSession, admin.orgId)).toBe(200);
      await upgraded.stop();
    }, 60_000);
  });
});
