// The SSO exchange's statements (store/sso-exchange.ts) against real stores: PostgreSQL direct
// and through PgBouncer in transaction mode (unnamed statements), and SQLite for the read.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase, STORE_ENGINES } from '../../test/support/bridge';
import { organizationRow } from '../../test/support/store-rows';
import { openStore, type Store } from '../src/store/db';
import { findMemberByEmail } from '../src/store/members';
import {
  checkKeptOrganization,
  findOrganizationWithMember,
  insertNewUserAndMember,
  keptOrganization,
  pgHitAndClaim,
} from '../src/store/sso-exchange';

const NOW = new Date().toISOString();
const LATER = new Date(Date.now() + 600_000).toISOString();

describe.each(STORE_ENGINES)('SSO exchange statements on %s', (engine) => {
  let dataDir: string;
  let database: Awaited<ReturnType<typeof createPgDatabase>> | undefined;
  let store: Store;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-sso-x-'));
    database = engine === 'sqlite' ? undefined : await createPgDatabase(engine);
    store = openStore({ databaseUrl: database?.url, dataDir });
    await store.migrate();
    await store.db
      .insertInto('organizations')
      .values([organizationRow('org_a'), organizationRow('org_b')])
      .execute();
    await store.db
      .insertInto('users')
      .values({
        id: 'usr_1',
        email: 'one@example.com',
        fullName: 'One',
        firstName: 'O',
        lastName: null,
        title: null,
        avatarUrl: null,
        isEmailVerified: 0,
        createdAt: NOW,
      })
      .execute();
    await store.db
      .insertInto('members')
      .values({
        id: 'mem_1',
        organizationId: 'org_a',
        userId: 'usr_1',
        role: 'ADMIN',
        groups: '["g"]',
        createdAt: NOW,
      })
      .execute();
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('reads the organization with the membership of an email, as findMemberByEmail does', async () => {
    const found = await findOrganizationWithMember(store, 'org_a', 'one@example.com');
    expect(found?.org).toMatchObject({ id: 'org_a', jwtSecretSealed: 'sealed' });
    expect(found?.org).not.toHaveProperty('memberId');
    expect(found?.member).toEqual(await findMemberByEmail(store.db, 'org_a', 'one@example.com'));
    expect(found?.member).toMatchObject({ id: 'mem_1', role: 'ADMIN', groups: '["g"]' });
    // A user of another organization, an unknown email: the organization, no membership.
    expect(await findOrganizationWithMember(store, 'org_b', 'one@example.com')).toEqual({
      org: expect.objectContaining({ id: 'org_b' }),
      member: undefined,
    });
    expect(
      (await findOrganizationWithMember(store, 'org_a', 'nobody@example.com'))?.member,
    ).toBeUndefined();
    expect(await findOrganizationWithMember(store, 'org_zz', 'one@example.com')).toBeUndefined();
  });

  const pgOnly = engine === 'sqlite' ? it.skip : it;
  /** Which of these user ids exist, in id order. */
  const existingUsers = async (ids: string[]) =>
    (
      await store.db.selectFrom('users').select('id').where('id', 'in', ids).orderBy('id').execute()
    ).map((u) => u.id);

  /** First sign-ins' proposals: user `usr_<tag><n>` named `first last`, an ADMIN with `groups`. */
  const proposals =
    (tag: string, [firstName, lastName]: [string, string], groups: string) =>
    (n: number, email: string) => ({
      user: {
        id: `usr_${tag}${n}`,
        email,
        fullName: `${firstName} ${lastName}`,
        firstName,
        lastName,
      },
      member: { id: `mem_${tag}${n}`, role: 'ADMIN', groups },
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

  pgOnly('reads the pairs that arrive together in one statement, each its own answer', async () => {
    const pool = store.pgPool!;
    const pairs: [string, string][] = [
      ['org_a', 'one@example.com'],
      ['org_a', 'one@example.com'],
      ['org_b', 'one@example.com'],
      ['org_zz', 'one@example.com'],
      ['org_a', 'nobody@example.com'],
    ];
    const { result, statements } = await counted(pool, () =>
      Promise.all(pairs.map(([org, email]) => findOrganizationWithMember(store, org, email))),
    );
    expect(statements).toBe(2);
    expect(result.map((r) => [r?.org.id, r?.member?.id])).toEqual([
      ['org_a', 'mem_1'],
      ['org_a', 'mem_1'],
      ['org_b', undefined],
      [undefined, undefined],
      ['org_a', undefined],
    ]);
    expect(result[1]).toEqual(result[0]);
    expect(result[0]?.org).not.toHaveProperty('i');
    expect(result[0]?.org).not.toHaveProperty('orgRowVersion');
  });

  pgOnly(
    'counts hits that arrive together in one statement, each in its own place, and claims within the limit',
    async () => {
      const pool = store.pgPool!;
      const hitAndClaim = pgHitAndClaim(pool);
      const counter = { keyPrefix: `bk:test-${randomUUID()}:`, windowMs: 60_000, limit: 6 };
      const jtis = ['j1', 'j2', 'j2', 'j3', 'j4', 'j5', 'j6', 'j7', 'j8', 'j9'];
      const { result, statements } = await counted(pool, () =>
        Promise.all(
          jtis.map((jti) =>
            hitAndClaim(counter, 'sso:org_a', { orgId: 'org_a', jti, expiresAt: LATER }),
          ),
        ),
      );
      // The first alone; the nine that arrived while it ran, together.
      expect(statements).toBe(2);
      expect(result.map((r) => r.consumedPoints)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      // j2 again is a replay; past the 6th hit nothing is claimed.
      expect(result.map((r) => r.fresh)).toEqual([
        true,
        true,
        false,
        true,
        true,
        true,
        false,
        false,
        false,
        false,
      ]);
      for (const r of result) {
        expect(r.msBeforeNext).toBeGreaterThan(50_000);
        expect(r.msBeforeNext).toBeLessThanOrEqual(60_000);
      }
      const claimed = await store.db
        .selectFrom('ssoJti')
        .select('jti')
        .where('organizationId', '=', 'org_a')
        .orderBy('jti')
        .execute();
      expect(claimed.map((r) => r.jti)).toEqual(['j1', 'j2', 'j3', 'j4', 'j5']);

      // A used jti stays used; an expired window starts again at the hits of the statement.
      await store.db
        .updateTable('rateLimits' as never)
        .set({ expire: Date.now() - 1 } as never)
        .where('key' as never, '=', `${counter.keyPrefix}sso:org_a` as never)
        .execute();
      const [again, fresh] = await Promise.all([
        hitAndClaim(counter, 'sso:org_a', { orgId: 'org_a', jti: 'j1', expiresAt: LATER }),
        hitAndClaim(counter, 'sso:org_a', { orgId: 'org_a', jti: 'j10', expiresAt: LATER }),
      ]);
      expect(again).toMatchObject({ consumedPoints: 1, fresh: false });
      expect(fresh).toMatchObject({ consumedPoints: 2, fresh: true });
    },
  );

  pgOnly(
    'claims on a kept organization row only while it is current, reading the membership with it',
    async () => {
      const pool = store.pgPool!;
      const hitAndClaim = pgHitAndClaim(pool);
      const counter = { keyPrefix: `bk:test-${randomUUID()}:`, windowMs: 60_000, limit: 100 };
      await findOrganizationWithMember(store, 'org_a', 'one@example.com');
      const kept = keptOrganization(pool, 'org_a');
      expect(kept?.org).toMatchObject({ id: 'org_a' });
      const claim = (jti: string, ifOrgVersion?: string, email?: string) =>
        hitAndClaim(counter, 'sso:org_a', {
          orgId: 'org_a',
          jti,
          expiresAt: LATER,
          ifOrgVersion,
          email,
        });

      const current = await claim('k1', kept!.version, 'one@example.com');
      expect(current).toMatchObject({ consumedPoints: 1, fresh: true, stale: false });
      expect(current.member).toEqual(await findMemberByEmail(store.db, 'org_a', 'one@example.com'));
      expect((await claim('k2', kept!.version, 'nobody@example.com')).member).toBeUndefined();

      // Changed by another connection: in one batch, the entry relying on the old row does
      // nothing, and the one that read afresh counts and claims in its place.
      await store.pgPool!.query(`update organizations set name = 'Changed' where id = 'org_a'`);
      // (k2b goes alone; the two behind it go together.)
      const [alone, stale, unchecked] = await Promise.all([
        claim('k2b'),
        claim('k3', kept!.version, 'one@example.com'),
        claim('k4'),
      ]);
      expect(alone).toMatchObject({ stale: false, fresh: true, consumedPoints: 3 });
      expect(stale).toMatchObject({ stale: true, fresh: false });
      expect(unchecked).toMatchObject({ stale: false, fresh: true, consumedPoints: 4 });
      expect(keptOrganization(pool, 'org_a')).toBeUndefined();
      const used = await store.db
        .selectFrom('ssoJti')
        .select('jti')
        .where('organizationId', '=', 'org_a')
        .where('jti', 'in', ['k1', 'k2', 'k2b', 'k3', 'k4'])
        .orderBy('jti')
        .execute();
      expect(used.map((r) => r.jti)).toEqual(['k1', 'k2', 'k2b', 'k4']);
      // The stale entry's jti is still free for the exchange that reads afresh.
      const reread = await findOrganizationWithMember(store, 'org_a', 'one@example.com');
      expect(reread?.org.name).toBe('Changed');
      const again = await claim('k3', keptOrganization(pool, 'org_a')!.version, 'one@example.com');
      expect(again).toMatchObject({ stale: false, fresh: true, consumedPoints: 5 });
    },
  );

  it('creates the first sign-ins that arrive together in one statement (one transaction on SQLite), each its own answer', async () => {
    const make = (n: number, email: string, orgId = 'org_b') =>
      insertNewUserAndMember(
        store,
        { id: `usr_b${n}`, email, fullName: null, firstName: null, lastName: null },
        { id: `mem_b${n}`, organizationId: orgId, role: 'MEMBER', groups: null },
        NOW,
      );
    const all = () =>
      Promise.all([
        make(1, 'b1@example.com'),
        // Gathered while the first runs: a new email, the same new email again, a known one.
        make(2, 'b2@example.com', 'org_a'),
        make(3, 'b2@example.com'),
        make(4, 'one@example.com'),
        make(5, 'b5@example.com'),
      ]);
    let result: Awaited<ReturnType<typeof all>>;
    if (store.pgPool) {
      const measured = await counted(store.pgPool, all);
      expect(measured.statements).toBe(2);
      result = measured.result;
    } else {
      result = await all();
    }
    expect(result.map((m) => m?.id)).toEqual(['mem_b1', 'mem_b2', undefined, undefined, 'mem_b5']);
    expect(result[1]).toMatchObject({ organizationId: 'org_a', userEmail: 'b2@example.com' });
    expect(result[4]).toEqual(
      (await findOrganizationWithMember(store, 'org_b', 'b5@example.com'))?.member,
    );
    expect(await existingUsers(['usr_b1', 'usr_b2', 'usr_b3', 'usr_b4', 'usr_b5'])).toEqual([
      'usr_b1',
      'usr_b2',
      'usr_b5',
    ]);
  });

  pgOnly(
    'creates the user and membership a claim brings only for an email never seen, once per email',
    async () => {
      const pool = store.pgPool!;
      const hitAndClaim = pgHitAndClaim(pool);
      const counter = { keyPrefix: `bk:test-${randomUUID()}:`, windowMs: 60_000, limit: 100 };
      await findOrganizationWithMember(store, 'org_b', 'x@example.com');
      const kept = keptOrganization(pool, 'org_b')!;
      const proposal = proposals('p', ['P', 'Q'], '["g"]');
      const claim = (n: number, email: string, version = kept.version) =>
        hitAndClaim(counter, 'sso:org_b', {
          orgId: 'org_b',
          jti: `p${n}`,
          expiresAt: LATER,
          ifOrgVersion: version,
          email,
          propose: () => proposal(n, email),
        });
      const [warm, first, twice, known, stale] = await Promise.all([
        claim(0, 'p0@example.com'),
        // Together: a new email twice, a user of another organization, a stale row.
        claim(1, 'new@example.com'),
        claim(2, 'new@example.com'),
        claim(3, 'one@example.com'),
        claim(4, 'p4@example.com', 'not-the-version'),
      ]);
      expect(warm.member).toMatchObject({ id: 'mem_p0', userId: 'usr_p0', role: 'ADMIN' });
      expect(first.member).toEqual(await findMemberByEmail(store.db, 'org_b', 'new@example.com'));
      expect(first.member).toMatchObject({
        id: 'mem_p1',
        userId: 'usr_p1',
        groups: '["g"]',
        userFullName: 'P Q',
      });
      // The same email twice: created once, both answered with it.
      expect(twice.member).toEqual(first.member);
      // A known user is not created again, nor made a member here.
      expect(known).toMatchObject({ fresh: true, member: undefined });
      expect(stale).toMatchObject({ stale: true });
      expect(await existingUsers(['usr_p0', 'usr_p1', 'usr_p2', 'usr_p3', 'usr_p4'])).toEqual([
        'usr_p0',
        'usr_p1',
      ]);
      // Seen with a membership now: a later claim for it brings nothing to create.
      const returning = await claim(5, 'new@example.com');
      expect(returning.member).toEqual(first.member);
    },
  );

  pgOnly(
    'with the claims in Redis: checks the kept row and creates what a first sign-in brings, in one statement per batch',
    async () => {
      const pool = store.pgPool!;
      await findOrganizationWithMember(store, 'org_b', 'x@example.com');
      const kept = keptOrganization(pool, 'org_b')!;
      const proposal = proposals('k', ['K', 'L'], '["k"]');
      const check = (n: number, email: string, version = kept.version) =>
        checkKeptOrganization(pool, 'org_b', version, email, () => proposal(n, email));
      const { result, statements } = await counted(pool, () =>
        Promise.all([
          check(0, 'k0@example.com'),
          // Together: a new email twice, a user of another organization, a stale row.
          check(1, 'knew@example.com'),
          check(2, 'knew@example.com'),
          check(3, 'one@example.com'),
          check(4, 'k4@example.com', 'not-the-version'),
        ]),
      );
      const [warm, first, twice, known, stale] = result;
      // The first alone, the four gathered while it ran together.
      expect(statements).toBe(2);
      expect(warm).toMatchObject({ stale: false, member: { id: 'mem_k0', userId: 'usr_k0' } });
      expect(first.member).toEqual(await findMemberByEmail(store.db, 'org_b', 'knew@example.com'));
      expect(first.member).toMatchObject({
        id: 'mem_k1',
        userId: 'usr_k1',
        role: 'ADMIN',
        groups: '["k"]',
        userFullName: 'K L',
      });
      expect(twice).toEqual(first);
      expect(known).toEqual({ stale: false, member: undefined });
      expect(stale).toEqual({ stale: true });
      expect(await existingUsers(['usr_k0', 'usr_k1', 'usr_k2', 'usr_k3', 'usr_k4'])).toEqual([
        'usr_k0',
        'usr_k1',
      ]);
      // Found stale: the kept row is forgotten, so the exchange reads afresh.
      expect(keptOrganization(pool, 'org_b')).toBeUndefined();

      // Seen with a membership now: nothing is proposed, the read checks the row.
      const proposed: string[] = [];
      await findOrganizationWithMember(store, 'org_b', 'x@example.com');
      const { version } = keptOrganization(pool, 'org_b')!;
      const returning = await checkKeptOrganization(
        pool,
        'org_b',
        version,
        'knew@example.com',
        () => {
          proposed.push('asked');
          return proposal(5, 'knew@example.com');
        },
      );
      expect(returning).toEqual({ stale: false, member: first.member });
      expect(proposed).toEqual([]);
      expect(
        await checkKeptOrganization(pool, 'org_b', 'not-the-version', 'knew@example.com'),
      ).toEqual({ stale: true });
    },
  );

  pgOnly(
    'looks each email of a batch up a bounded number of times, not once per pair',
    async () => {
      // The statements that create a batch of n first sign-ins, their plans read back by
      // auto_explain on a connection of its own (direct: the settings are the session's).
      // Released, the claims statement looked every email of the batch up again for each entry:
      // 2 × n² scans of users_email_key.
      const n = 32;
      const client = new Pg.Client({ connectionString: database!.directUrl });
      await client.connect();
      const plans: string[] = [];
      client.on('notice', (msg) => {
        if (msg.message?.includes('"Plan"')) plans.push(msg.message);
      });
      const each = <T>(f: (i: number) => T) => Array.from({ length: n }, (_, i) => f(i));
      /** The batch's member ids as answered, and the statement's scans of users_email_key. */
      const scansOf = async (text: string, values: unknown[]) => {
        plans.length = 0;
        const { rows } = await client.query(text, values);
        const statement = plans
          .map((p) => JSON.parse(p.slice(p.indexOf('{'))))
          .find((c) => c['Query Text']?.includes('with cur as'));
        expect(statement).toBeDefined();
        let emailScans = 0;
        const walk = (node: Record<string, unknown>) => {
          if (node['Index Name'] === 'users_email_key')
            emailScans += node['Actual Loops'] as number;
          for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? [])
            walk(child);
        };
        walk(statement.Plan);
        return { members: rows.map((r) => r.member_id), emailScans };
      };
      const proposals = (tag: string) => [
        each((i) => `${tag}${i}@example.com`),
        each((i) => `usr_${tag}${i}`),
        each(() => 'S T'),
        each(() => 'S'),
        each(() => 'T'),
        each((i) => `mem_${tag}${i}`),
        each(() => 'MEMBER'),
        each(() => null),
      ];
      try {
        await client.query(`load 'auto_explain'`);
        await client.query(`set auto_explain.log_min_duration = 0; set auto_explain.log_analyze = on;
        set auto_explain.log_timing = off; set auto_explain.log_nested_statements = on;
        set auto_explain.log_format = json; set client_min_messages = log`);
        const claims = await scansOf(
          `select * from bk_sso_claims_creating($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11,
          $12, $13, $14, $15, $16, $17)`,
          [
            `bk:test-${randomUUID()}:sso:org_b`,
            Date.now() + 60_000,
            Date.now(),
            each((i) => `scan${i}`),
            1000,
            'org_b',
            each(() => LATER),
            NOW,
            each(() => null),
            ...proposals('scan'),
          ],
        );
        expect(claims.members).toEqual(each((i) => `mem_scan${i}`));
        // With the claims in Redis: the statement that checks the kept row and creates.
        const { rows } = await client.query(
          `select xmin::text as v from organizations where id = 'org_b'`,
        );
        const checked = await scansOf(
          'select * from bk_sso_members_creating($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)',
          ['org_b', NOW, each(() => rows[0].v), ...proposals('chk')],
        );
        expect(checked.members).toEqual(each((i) => `mem_chk${i}`));
        // Once for "is it new?", once each for the users and memberships it answers with.
        for (const { emailScans } of [claims, checked]) {
          expect(emailScans).toBeGreaterThanOrEqual(n);
          expect(emailScans).toBeLessThanOrEqual(3 * n);
        }
      } finally {
        await client.end();
      }
    },
  );

  pgOnly('takes over a jti whose entry has expired', async () => {
    const hitAndClaim = pgHitAndClaim(store.pgPool!);
    const counter = { keyPrefix: `bk:test-${randomUUID()}:`, windowMs: 60_000, limit: 100 };
    await store.db
      .insertInto('ssoJti')
      .values({ organizationId: 'org_b', jti: 'old', expiresAt: '2000-01-01T00:00:00.000Z' })
      .execute();
    const claim = { orgId: 'org_b', jti: 'old', expiresAt: LATER };
    expect((await hitAndClaim(counter, 'sso:org_b', claim)).fresh).toBe(true);
    expect((await hitAndClaim(counter, 'sso:org_b', claim)).fresh).toBe(false);
  });

  it('creates a new user and membership at once (one statement on PostgreSQL), and nothing for a known email', async () => {
    const user = { fullName: 'Two T', firstName: 'Two', lastName: 'T' };
    const create = () =>
      insertNewUserAndMember(
        store,
        { id: 'usr_2', email: 'two@example.com', ...user },
        { id: 'mem_2', organizationId: 'org_b', role: 'MEMBER', groups: null },
        NOW,
      );
    let created: Awaited<ReturnType<typeof create>>;
    if (store.pgPool) {
      const { result, statements } = await counted(store.pgPool, create);
      expect(statements).toBe(1);
      created = result;
    } else {
      created = await create();
    }
    expect(created).toEqual(
      await findOrganizationWithMember(store, 'org_b', 'two@example.com').then((f) => f?.member),
    );
    expect(created).toMatchObject({
      id: 'mem_2',
      userId: 'usr_2',
      userEmail: 'two@example.com',
      groups: null,
      userFullName: 'Two T',
    });

    const known = await insertNewUserAndMember(
      store,
      { id: 'usr_3', email: 'one@example.com', ...user },
      { id: 'mem_3', organizationId: 'org_b', role: 'MEMBER', groups: null },
      NOW,
    );
    expect(known).toBeUndefined();
    expect(
      await store.db.selectFrom('members').select('id').where('id', '=', 'mem_3').execute(),
    ).toEqual([]);
    expect(
      await store.db.selectFrom('users').select('id').where('id', '=', 'usr_3').execute(),
    ).toEqual([]);
  });
});
