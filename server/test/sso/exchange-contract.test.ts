// The SSO exchange's store (store/sso-exchange/): one contract, every engine passes it. SQLite
// (counters in the limiter), PostgreSQL direct and through PgBouncer in transaction mode
// (counters in `rate_limits`, one statement with the claim), PostgreSQL with the counters and
// jtis in a private Redis (one script).
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import type Pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPgDatabase, STORE_ENGINES } from '../../../test/support/bridge';
import { type RedisServer, startRedisServer } from '../../../test/support/redis-server';
import { organizationRow } from '../../../test/support/store-rows';
import { createLimiter, type Limiter, type LimiterBackend } from '../../src/rate-limit';
import { openStore, type Store } from '../../src/store/db';
import { findMemberByEmail } from '../../src/store/members';
import {
  type MembersAdded,
  openSsoExchange,
  type SsoExchangeStore,
} from '../../src/store/sso-exchange';
import { redisJtiKey } from '../../src/store/sso-exchange/postgres-redis';

const LIMIT = 5;
// `redis`: PostgreSQL with the counters and jtis in Redis; `redis-jtis`: the counters in
// PostgreSQL (BRIDGE_RATE_LIMIT_STORE=store) and the jtis in Redis.
const ENGINES = [
  ...STORE_ENGINES,
  ...(STORE_ENGINES.includes('postgres') ? ['redis', 'redis-jtis'] : []),
] as ((typeof STORE_ENGINES)[number] | 'redis' | 'redis-jtis')[];
const later = () => new Date(Date.now() + 600_000);

describe.each(ENGINES)('the SSO exchange store on %s', (engine) => {
  let dataDir: string;
  let database: Awaited<ReturnType<typeof createPgDatabase>> | undefined;
  let redisServer: RedisServer | undefined;
  let redis: Redis | undefined;
  let store: Store;
  let limiter: Limiter;
  let sso: SsoExchangeStore;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-sso-contract-'));
    if (engine !== 'sqlite')
      database = await createPgDatabase(
        engine === 'redis' || engine === 'redis-jtis' ? 'postgres' : engine,
      );
    if (engine.startsWith('redis')) {
      redisServer = await startRedisServer();
      redis = new Redis(redisServer.url);
    }
    store = openStore({ databaseUrl: database?.url, dataDir });
    await store.migrate();
    const backend: LimiterBackend =
      engine === 'redis' && redis
        ? { kind: 'redis', client: redis }
        : store.pgPool
          ? { kind: 'postgres', pool: store.pgPool }
          : { kind: 'memory' };
    limiter = createLimiter({ name: `sso-${randomUUID()}`, perMinute: LIMIT, backend });
    sso = openSsoExchange(
      store,
      limiter,
      () => new Date(),
      (tx, orgId, members) => onAdded(tx, orgId, members),
      redis,
    );
  });
  afterAll(async () => {
    await store?.close();
    await redis?.quit();
    await redisServer?.stop();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  afterEach(() => {
    vi.useRealTimers();
    onAdded = async () => {};
  });

  /** A fresh organization (each its own counter). */
  async function newOrg() {
    const id = `org_${randomUUID().replaceAll('-', '')}`;
    await store.db.insertInto('organizations').values(organizationRow(id)).execute();
    return id;
  }
  const newEmail = () => `u-${randomUUID()}@example.com`;
  /** The ids of the users stored with `email`. */
  const usersWith = (email: string) =>
    store.db.selectFrom('users').select('id').where('email', '=', email).execute();
  const signIn = (orgId: string, email: string, n = randomUUID()) => ({
    orgId,
    user: { id: `usr_${n}`, email, fullName: 'Ada L', firstName: 'Ada', lastName: 'L' },
    member: { id: `mem_${n}`, role: 'ADMIN', groups: '["g"]' },
    at: new Date(),
  });
  /** The store's hook for the memberships a transaction created (per test). */
  let onAdded: MembersAdded = async () => {};
  const claim = (orgId: string, jti: string, expiresAt = later()) =>
    sso.countAndClaim(orgId, { jti, expiresAt });
  /** Whether the store holds `jti` as used. */
  async function jtiUsed(orgId: string, jti: string) {
    if (redis) return (await redis.exists(redisJtiKey(orgId, jti))) === 1;
    const rows = await store.db
      .selectFrom('ssoJti')
      .select('jti')
      .where('organizationId', '=', orgId)
      .where('jti', '=', jti)
      .execute();
    return rows.length === 1;
  }
  /** Ends the current window of the organization's counter, as time passing would. */
  async function endWindow(orgId: string) {
    if (engine === 'redis' && redis) {
      await redis.del(`${limiter.keyPrefix}sso:${orgId}`);
      return;
    }
    // The memory limiter and the PostgreSQL statement both judge windows by this process's clock.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + limiter.windowMs + 1000);
  }

  it('reads the organization with the membership of an email, in one read', async () => {
    const orgId = await newOrg();
    const other = await newOrg();
    const email = newEmail();
    const made = await sso.provision(signIn(orgId, email));
    expect(made.status).toBe('created');

    const read = await sso.read(orgId, email);
    expect(read?.org).toMatchObject({ id: orgId, jwtSecretSealed: 'sealed' });
    expect(read?.org).not.toHaveProperty('memberId');
    expect(read?.member).toEqual(await findMemberByEmail(store.db, orgId, email));
    expect(read?.member).toMatchObject({ role: 'ADMIN', groups: '["g"]', userFullName: 'Ada L' });
    // A user of another organization, an unknown email, no email: the organization alone.
    expect(await sso.read(other, email)).toEqual({
      org: expect.objectContaining({ id: other }),
      member: undefined,
    });
    expect((await sso.read(orgId, newEmail()))?.member).toBeUndefined();
    expect(await sso.read(orgId, undefined)).toEqual({
      org: expect.objectContaining({ id: orgId }),
      member: undefined,
    });
    expect(await sso.read('org_missing', email)).toBeUndefined();
    expect(await sso.read('org_missing', undefined)).toBeUndefined();
  });

  it('answers concurrent reads each with its own pair', async () => {
    const a = await newOrg();
    const b = await newOrg();
    const email = newEmail();
    await sso.provision(signIn(a, email));
    const pairs: [string, string][] = [
      [a, email],
      [b, email],
      ['org_missing', email],
      [a, newEmail()],
      [a, email],
    ];
    const reads = await Promise.all(pairs.map(([org, e]) => sso.read(org, e)));
    expect(reads.map((r) => [r?.org.id, r?.member?.userEmail])).toEqual([
      [a, email],
      [b, undefined],
      [undefined, undefined],
      [a, undefined],
      [a, email],
    ]);
  });

  it('accepts a jti exactly once under concurrency, per organization', async () => {
    const orgId = await newOrg();
    const other = await newOrg();
    const jti = randomUUID();
    const results = await Promise.all(Array.from({ length: LIMIT }, () => claim(orgId, jti)));
    expect(results.filter((r) => r.fresh)).toHaveLength(1);
    expect(await jtiUsed(orgId, jti)).toBe(true);
    // The same jti in another organization is another token's.
    expect((await claim(other, jti)).fresh).toBe(true);
    expect((await claim(other, jti)).fresh).toBe(false);
  });

  it('counts each hit in its own place, claims only within the limit, and starts a new window once it ends', async () => {
    const orgId = await newOrg();
    const jtis = Array.from({ length: LIMIT + 2 }, () => randomUUID());
    const results = await Promise.all(jtis.map((jti) => claim(orgId, jti)));
    expect(results.map((r) => r.outcome.consumedPoints).sort((x, y) => x - y)).toEqual(
      jtis.map((_, i) => i + 1),
    );
    for (const r of results) {
      expect(r.fresh).toBe(r.outcome.consumedPoints <= LIMIT);
      expect(r.outcome.msBeforeNext).toBeGreaterThan(0);
      expect(r.outcome.msBeforeNext).toBeLessThanOrEqual(limiter.windowMs);
    }
    // Past the limit the jti is left unused: the token is good once the window ends.
    const refused = jtis.filter((_, i) => !results[i]!.fresh);
    expect(refused).toHaveLength(2);
    for (const jti of refused) expect(await jtiUsed(orgId, jti)).toBe(false);
    // A hit without a jti (a token without one) counts too.
    expect(await sso.countAndClaim(orgId)).toMatchObject({
      fresh: false,
      outcome: { consumedPoints: LIMIT + 3 },
    });

    await endWindow(orgId);
    const [again, used] = [await claim(orgId, refused[0]!), await claim(orgId, jtis[0]!)];
    expect(again).toMatchObject({ fresh: true, outcome: { consumedPoints: 1 } });
    // A used jti stays used in the new window.
    expect(used).toMatchObject({ fresh: false, outcome: { consumedPoints: 2 } });
    expect(await sso.countAndClaim(orgId)).toMatchObject({
      fresh: true,
      outcome: { consumedPoints: 3 },
    });
  });

  it('takes over a jti whose entry has expired, and gives a released one back', async () => {
    const orgId = await newOrg();
    const jti = randomUUID();
    if (redis) {
      // Kept with the token's remaining lifetime: gone when it ends.
      await redis.set(redisJtiKey(orgId, jti), '1', 'PX', 1);
      while ((await redis.exists(redisJtiKey(orgId, jti))) === 1) {
        await new Promise((r) => setTimeout(r, 5));
      }
    } else {
      await store.db
        .insertInto('ssoJti')
        .values({ organizationId: orgId, jti, expiresAt: '2000-01-01T00:00:00.000Z' })
        .execute();
    }
    expect((await claim(orgId, jti)).fresh).toBe(true);
    expect((await claim(orgId, jti)).fresh).toBe(false);
    await sso.release(orgId, jti);
    expect(await jtiUsed(orgId, jti)).toBe(false);
    expect((await claim(orgId, jti)).fresh).toBe(true);
  });

  it('claims while a transaction holds a connection, and still refuses a replay', async () => {
    const orgId = await newOrg();
    const jti = randomUUID();
    let inside: Promise<boolean[]> | undefined;
    await store.db.transaction().execute(async (tx) => {
      await tx.updateTable('organizations').set({ name: 'A' }).where('id', '=', orgId).execute();
      inside = Promise.all([claim(orgId, jti), claim(orgId, jti)]).then((rs) =>
        rs.map((r) => r.fresh),
      );
      await new Promise((r) => setTimeout(r, 20));
    });
    expect((await inside)?.sort()).toEqual([false, true]);
  });

  it('provisions a first sign-in once under concurrent exchanges of one new email, its event in the same transaction', async () => {
    const orgId = await newOrg();
    const email = newEmail();
    const added: string[] = [];
    onAdded = async (tx, addedTo, members) => {
      for (const member of members) {
        // Inside the transaction that created it: the membership is visible there.
        const seen = await tx
          .selectFrom('members')
          .select('id')
          .where('id', '=', member.id)
          .execute();
        expect(seen).toHaveLength(1);
        expect(addedTo).toBe(orgId);
        added.push(member.id);
      }
    };
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        sso.provision(signIn(orgId, email, `race${i}${randomUUID()}`)),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([
      'created',
      'existing',
      'existing',
      'existing',
      'existing',
      'existing',
    ]);
    const members = results.map((r) => (r.status === 'no_organization' ? undefined : r.member));
    expect(new Set(members.map((m) => m?.id)).size).toBe(1);
    expect(added).toEqual([members[0]!.id]);
    const users = await usersWith(email);
    expect(users).toEqual([{ id: members[0]!.userId }]);
    expect(members[0]).toEqual(await findMemberByEmail(store.db, orgId, email));
  });

  it('provisions each new email once when two instances sign it in at once (two stores on one database)', async () => {
    const other = openStore({ databaseUrl: database?.url, dataDir });
    try {
      const otherSso = openSsoExchange(
        other,
        limiter,
        () => new Date(),
        async () => {},
        redis,
      );
      const orgId = await newOrg();
      const emails = Array.from({ length: 12 }, newEmail);
      const results = await Promise.all(
        emails.flatMap((email) =>
          [sso, otherSso, sso, otherSso].map(async (on) => ({
            email,
            result: await on.provision(signIn(orgId, email)),
          })),
        ),
      );
      for (const email of emails) {
        const mine = results.filter((r) => r.email === email).map((r) => r.result);
        expect(mine.map((r) => r.status).sort()).toEqual([
          'created',
          'existing',
          'existing',
          'existing',
        ]);
        const ids = mine.map((r) => (r.status === 'no_organization' ? undefined : r.member.id));
        expect(new Set(ids).size).toBe(1);
        const users = await usersWith(email);
        expect(users).toHaveLength(1);
      }
    } finally {
      await other.close();
    }
  });

  it('makes a user of another organization a member without creating the user again', async () => {
    const first = await newOrg();
    const second = await newOrg();
    const email = newEmail();
    const there = await sso.provision(signIn(first, email));
    const here = await sso.provision(signIn(second, email));
    expect(here.status).toBe('created');
    if (there.status === 'no_organization' || here.status === 'no_organization') throw new Error();
    expect(here.member.userId).toBe(there.member.userId);
    expect(here.member.organizationId).toBe(second);
  });

  it('creates nothing when the event of the membership fails: one transaction', async () => {
    const orgId = await newOrg();
    const email = newEmail();
    onAdded = async () => {
      throw new Error('outbox write failed');
    };
    await expect(sso.provision(signIn(orgId, email))).rejects.toThrow('outbox write failed');
    expect((await sso.read(orgId, email))?.member).toBeUndefined();
    const users = await usersWith(email);
    expect(users).toEqual([]);
  });

  it('provisions concurrent first sign-ins of many emails each once, a failing one alone refused', async () => {
    const orgId = await newOrg();
    const emails = Array.from({ length: 8 }, newEmail);
    const twice = [...emails, ...emails];
    onAdded = async (tx, _orgId, members) => {
      for (const member of members) {
        if (member.userEmail === emails[3]) throw new Error('outbox write failed');
        // An outbox row, in the transaction: it stays only if that transaction commits.
        await tx
          .insertInto('webhookEvents')
          .values({
            id: `msg_${randomUUID()}`,
            organizationId: orgId,
            type: 'member.added',
            payload: member.userEmail,
            createdAt: new Date().toISOString(),
          })
          .execute();
      }
    };
    const results = await Promise.allSettled(
      twice.map((email) => sso.provision(signIn(orgId, email))),
    );
    // Each email but the failing one: created once, found once, one event committed.
    for (const email of emails) {
      const statuses = results
        .filter((_, i) => twice[i] === email)
        .map((r) => (r.status === 'fulfilled' ? r.value.status : 'failed'))
        .sort();
      expect(statuses).toEqual(
        email === emails[3] ? ['failed', 'failed'] : ['created', 'existing'],
      );
    }
    const events = await store.db
      .selectFrom('webhookEvents')
      .select('payload')
      .where('organizationId', '=', orgId)
      .execute();
    expect(events.map((e) => e.payload).sort()).toEqual(
      emails.filter((e) => e !== emails[3]).sort(),
    );
    expect((await sso.read(orgId, emails[3]!))?.member).toBeUndefined();
  });

  it('answers an organization changed after it was read: rotated, member removed, deleted', async () => {
    const orgId = await newOrg();
    const email = newEmail();
    const made = await sso.provision(signIn(orgId, email));
    if (made.status === 'no_organization') throw new Error();
    const before = await sso.read(orgId, email);

    // Rotated by another connection: the next read has the new secret.
    await store.db
      .updateTable('organizations')
      .set({ jwtSecretSealed: 'rotated', previousJwtSecretSealed: 'sealed' })
      .where('id', '=', orgId)
      .execute();
    const rotated = await sso.read(orgId, email);
    expect(rotated?.org).toMatchObject({
      jwtSecretSealed: 'rotated',
      previousJwtSecretSealed: 'sealed',
    });
    expect(before?.org.jwtSecretSealed).toBe('sealed');

    // Member removed: no membership is read, and the next sign-in creates one again.
    await store.db.deleteFrom('members').where('id', '=', made.member.id).execute();
    expect((await sso.read(orgId, email))?.member).toBeUndefined();
    const back = await sso.provision(signIn(orgId, email));
    expect(back.status).toBe('created');

    // Deleted after the read: provisioning creates nothing and says so.
    await store.db.deleteFrom('organizations').where('id', '=', orgId).execute();
    expect(await sso.read(orgId, email)).toBeUndefined();
    let events = 0;
    onAdded = async () => {
      events++;
    };
    const gone = await sso.provision(signIn(orgId, newEmail()));
    expect(gone).toEqual({ status: 'no_organization' });
    expect(events).toBe(0);
    const left = await store.db
      .selectFrom('members')
      .select('id')
      .where('organizationId', '=', orgId)
      .execute();
    expect(left).toEqual([]);
  });

  const pgOnly = engine === 'sqlite' ? it.skip : it;
  pgOnly(
    'gathers what arrives while a statement runs into the next: two statements for many',
    async () => {
      const orgId = await newOrg();
      const pool = store.pgPool!;
      const { statements } = await counted(pool, () =>
        Promise.all([
          ...Array.from({ length: 8 }, () => sso.read(orgId, newEmail())),
          ...(redis ? [] : Array.from({ length: 8 }, () => claim(orgId, randomUUID()))),
        ]),
      );
      // The first read (and claim) alone; the ones that arrived while it ran, together.
      expect(statements).toBe(redis ? 2 : 4);
    },
  );
});

/** The statements sent through `pool.query` while `run` runs. */
async function counted<T>(pool: Pg.Pool, run: () => Promise<T>) {
  const original = pool.query;
  let statements = 0;
  pool.query = ((...args: Parameters<Pg.Pool['query']>) => {
    statements++;
    return (original as (...a: unknown[]) => unknown).apply(pool, args);
  }) as Pg.Pool['query'];
  try {
    return { result: await run(), statements };
  } finally {
    pool.query = original;
  }
}
