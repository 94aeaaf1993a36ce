// The SSO exchange on PostgreSQL (store/sso-exchange/): how many round trips an exchange takes,
// and that the rate limit, the replay protection and the first sign-in stay exact across two
// instances sharing the counters, whatever another instance changes in between.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestBridge } from '../../../test/support/bridge';
import {
  claimsFor,
  createOrg,
  createSharedPg,
  type SharedPg,
  signHs256,
  startBridgeOn,
} from './support';

const REDIS_URL = 'redis://127.0.0.1:6379';
const LIMIT = 3;

type Connection = Record<'query' | 'parse' | 'sync', (...args: unknown[]) => unknown>;

/**
 * The statements the bridge's pool sends while `run` runs, counted on the wire protocol: a
 * simple query, or an extended one (parse/bind/execute, ended by one sync) — a round trip each.
 */
async function roundTrips<T>(
  bridge: TestBridge,
  run: () => Promise<T>,
): Promise<{ result: T; texts: string[] }> {
  const pool = bridge.deps.store.pgPool!;
  const client = await pool.connect();
  const proto = Object.getPrototypeOf(
    (client as unknown as { connection: Connection }).connection,
  ) as Connection;
  client.release();
  const original = { query: proto.query, parse: proto.parse, sync: proto.sync };
  const texts: string[] = [];
  let parsed: string | undefined;
  proto.query = function (this: unknown, ...args: unknown[]) {
    texts.push(String(args[0]));
    return original.query.apply(this, args);
  };
  proto.parse = function (this: unknown, ...args: unknown[]) {
    parsed = (args[0] as { text?: string }).text;
    return original.parse.apply(this, args);
  };
  proto.sync = function (this: unknown, ...args: unknown[]) {
    texts.push(parsed ?? '(a named statement prepared before)');
    parsed = undefined;
    return original.sync.apply(this, args);
  };
  try {
    return { result: await run(), texts };
  } finally {
    Object.assign(proto, original);
  }
}

describe.each([
  ['the store', {}, 2],
  ['Redis', { REDIS_URL }, 1],
] as const)(
  'the SSO exchange on PostgreSQL, jti and counters in %s',
  (where, env, returningTrips) => {
    let db: SharedPg;
    let one: TestBridge;
    let two: TestBridge;
    let redis: Redis | undefined;
    let org: { id: string; jwtSecret: string };

    beforeAll(async () => {
      db = await createSharedPg();
      const limits = { BRIDGE_SSO_RATE_LIMIT_PER_MINUTE: String(LIMIT), ...env };
      one = await startBridgeOn(db, limits);
      two = await startBridgeOn(db, limits);
      if (where === 'Redis') redis = new Redis(REDIS_URL);
    });
    afterAll(async () => {
      await one?.stop();
      await two?.stop();
      await redis?.quit();
      await db?.drop();
    });
    // Each test its own organization: the SSO limit counts per organization.
    const newOrg = async () => {
      const owner = await one.newUser();
      org = await createOrg(one, owner.key, { embedAllowedOrigins: ['https://app.example.com'] });
    };
    afterEach(() => {
      org = undefined as never;
    });

    const exchange = (bridge: TestBridge, jwt: string, headers: Record<string, string> = {}) =>
      bridge.request('POST', '/api/sso/jwt', { body: { jwt }, headers });
    const jtiUsed = async (orgId: string, jti: string) => {
      if (redis) return (await redis.exists(`bk:jti:${orgId}:${jti}`)) === 1;
      const rows = await one.deps.store.db
        .selectFrom('ssoJti')
        .select('jti')
        .where('organizationId', '=', orgId)
        .where('jti', '=', jti)
        .execute();
      return rows.length === 1;
    };

    /** The memberships of `email` in `orgId`, as the store holds them (select what to see). */
    const membershipsOf = (orgId: string, email: string) =>
      one.deps.store.db
        .selectFrom('members as m')
        .innerJoin('users as u', 'u.id', 'm.userId')
        .where('m.organizationId', '=', orgId)
        .where('u.email', '=', email);

    it(`signs a returning member in with ${returningTrips} PostgreSQL round trip(s) on either instance`, async () => {
      await newOrg();
      const email = `r-${randomBytes(4).toString('hex')}@example.com`;
      expect(
        (await exchange(one, await signHs256(claimsFor(org.id, { email }), org.jwtSecret))).status,
      ).toBe(200);
      const first = await roundTrips(one, async () =>
        exchange(one, await signHs256(claimsFor(org.id, { email }), org.jwtSecret)),
      );
      expect(first.result.status).toBe(200);
      // The organization with the membership; where the counters live in the store, the hit
      // with the claim. Nothing written for a member whose names and groups are unchanged.
      expect(first.texts).toHaveLength(returningTrips);
      expect(first.texts[0]).toMatch(/bk_org_with_member/);
      if (returningTrips === 2) expect(first.texts[1]).toMatch(/insert into sso_jti/);

      const again = await roundTrips(two, async () =>
        exchange(two, await signHs256(claimsFor(org.id, { email }), org.jwtSecret)),
      );
      expect(again.result.status).toBe(200);
      expect(again.texts).toHaveLength(returningTrips);
      // The same member, read on the other instance with the organization.
      expect(again.result.body.data.member).toEqual(first.result.body.data.member);
      expect(again.result.body.data.organization.id).toBe(org.id);
    });

    it("creates a first sign-in's user and membership in one transaction after the read and the claim", async () => {
      await newOrg();
      const email = `f-${randomBytes(4).toString('hex')}@example.com`;
      const claims = { email, role: 'ADMIN', groups: ['x'], firstName: 'Ada', lastName: 'L' };
      const first = await roundTrips(one, async () =>
        exchange(one, await signHs256(claimsFor(org.id, claims), org.jwtSecret)),
      );
      expect(first.result.status).toBe(200);
      // The read and the claim as for a returning member, then one transaction.
      const begin = first.texts.findIndex((t) => /^\s*begin/i.test(t));
      expect(begin).toBe(returningTrips);
      expect(first.texts.at(-1)).toMatch(/^\s*commit/i);
      expect(first.texts.slice(begin).join('\n')).toMatch(
        /insert into users[\s\S]*insert into members/,
      );
      const member = first.result.body.data.member;
      expect(member).toMatchObject({ role: 'ADMIN', user: { email, fullName: 'Ada L' } });
      // What the store now holds, as the other instance reads it.
      const again = await exchange(
        two,
        await signHs256(claimsFor(org.id, { email }), org.jwtSecret),
      );
      expect(again.status).toBe(200);
      expect(again.body.data.member).toEqual(member);
      const [row] = await membershipsOf(org.id, email)
        .select(['m.groups', 'm.role', 'u.firstName', 'u.lastName'])
        .execute();
      expect(row).toEqual({ groups: '["x"]', role: 'ADMIN', firstName: 'Ada', lastName: 'L' });
    });

    it('answers what is committed after another instance changed the organization, counting one hit', async () => {
      const owner = await one.newUser();
      const admin = await createOrg(one, owner.key, {
        fullEmbedEnabled: true,
        embedAllowedOrigins: ['https://app.example.com'],
      });
      // A returning member.
      const email = `rn-${randomBytes(4).toString('hex')}@example.com`;
      const sign = (secret = admin.jwtSecret) => signHs256(claimsFor(admin.id, { email }), secret);
      // Instance one reads (and keeps) the organization.
      expect((await exchange(one, await sign())).status).toBe(200);

      // Renamed through instance two: one's next exchange answers the new name.
      const renamed = await two.request('PATCH', `/api/public/organizations/${admin.id}`, {
        key: owner.key,
        body: { name: 'Renamed elsewhere' },
      });
      expect(renamed.status).toBe(200);
      const after = await exchange(one, await sign());
      expect(after.status).toBe(200);
      expect(after.body.data.organization.name).toBe('Renamed elsewhere');
      expect(after.headers.get('ratelimit-remaining')).toBe(String(LIMIT - 2));

      // A secret rotated through instance two: a token of the new secret passes on one at once.
      const rotated = await two.request(
        'POST',
        `/api/public/organizations/${admin.id}/jwt-secret`,
        { key: owner.key },
      );
      expect(rotated.status).toBe(200);
      const fresh = await exchange(one, await sign(rotated.body.data.jwtSecret));
      expect(fresh.status).toBe(200);
      expect(fresh.headers.get('ratelimit-remaining')).toBe(String(LIMIT - 3));
    });

    it('signs a first sign-in in after another connection changed the organization: counted once, its jti used once, its member created once', async () => {
      await newOrg();
      // Instance one has read the organization before.
      expect((await exchange(one, await signHs256(claimsFor(org.id), org.jwtSecret))).status).toBe(
        200,
      );
      await two.deps.store.db
        .updateTable('organizations')
        .set({ name: 'Changed under one' })
        .where('id', '=', org.id)
        .execute();
      // A new email: the exchange answers the row as committed now.
      const email = `st-${randomBytes(4).toString('hex')}@example.com`;
      const claims = claimsFor(org.id, { email, role: 'ADMIN' });
      const jwt = await signHs256(claims, org.jwtSecret);
      const signedIn = await exchange(one, jwt);
      expect(signedIn.status).toBe(200);
      expect(signedIn.body.data.organization.name).toBe('Changed under one');
      expect(signedIn.body.data.member).toMatchObject({ role: 'ADMIN', user: { email } });
      expect(signedIn.headers.get('ratelimit-remaining')).toBe(String(LIMIT - 2));
      expect(await jtiUsed(org.id, claims.jti)).toBe(true);
      const members = await membershipsOf(org.id, email).select('m.id').execute();
      expect(members).toEqual([{ id: signedIn.body.data.member.id }]);
      // The token is spent.
      const replay = await exchange(two, jwt);
      expect(replay.status).toBe(401);
      expect(replay.body.error).toMatchObject({ title: 'Unauthorized', code: 'sso_token_invalid' });
    });

    it('gives a claimed jti back when the store fails the exchange after the claim', async () => {
      await newOrg();
      // The store refuses memberships of this organization: the first sign-in fails after its
      // claim, in the provisioning transaction.
      const fn = `bk_test_fail_${randomBytes(4).toString('hex')}`;
      const pool = one.deps.store.pgPool!;
      await pool.query(`create function ${fn}() returns trigger language plpgsql as $$
        begin raise exception 'members refused'; end $$`);
      await pool.query(`create trigger ${fn} before insert on members for each row
        when (new.organization_id = '${org.id}') execute function ${fn}()`);
      const claims = claimsFor(org.id, {
        email: `sf-${randomBytes(4).toString('hex')}@example.com`,
      });
      const jwt = await signHs256(claims, org.jwtSecret);
      let failed: Awaited<ReturnType<typeof exchange>>;
      try {
        failed = await exchange(one, jwt);
      } finally {
        await pool.query(`drop trigger ${fn} on members; drop function ${fn}()`);
      }
      expect([failed.status, failed.body.error.title]).toEqual([500, 'InternalError']);
      expect(await jtiUsed(org.id, claims.jti)).toBe(false);
      // The token is still good once the store answers.
      const retried = await exchange(one, jwt);
      expect(retried.status).toBe(200);
      expect(await jtiUsed(org.id, claims.jti)).toBe(true);
    });

    it("answers a page's exchange with the CORS of the current origins after another instance changed them", async () => {
      const owner = await one.newUser();
      const kit = await createOrg(one, owner.key, {
        embedAllowedOrigins: ['https://app.example.com'],
      });
      const fromPage = async (origin: string) =>
        exchange(one, await signHs256(claimsFor(kit.id), kit.jwtSecret), { origin });
      const allowed = await fromPage('https://app.example.com');
      expect(allowed.status).toBe(200);
      expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');

      const moved = await two.request('PATCH', `/api/public/organizations/${kit.id}`, {
        key: owner.key,
        body: { embedAllowedOrigins: ['https://other.example.com'] },
      });
      expect(moved.status).toBe(200);
      const refused = await fromPage('https://app.example.com');
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ title: 'Forbidden', code: 'origin_not_allowed' });
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
      const now = await fromPage('https://other.example.com');
      expect(now.status).toBe(200);
      expect(now.headers.get('access-control-allow-origin')).toBe('https://other.example.com');
      expect(now.headers.get('ratelimit-remaining')).toBe(String(LIMIT - 3));
    });

    it('refuses a full-embed sign-in at once on an instance that read the organization before it was turned off', async () => {
      const owner = await one.newUser();
      const embed = await createOrg(one, owner.key, {
        fullEmbedEnabled: true,
        embedAllowedOrigins: ['https://app.example.com'],
      });
      const signIn = async (bridge: TestBridge) =>
        bridge.request(
          'GET',
          `/api/sso/jwt?jwt=${encodeURIComponent(await signHs256(claimsFor(embed.id), embed.jwtSecret))}`,
          { headers: { referer: 'https://app.example.com/app', accept: 'application/json' } },
        );
      expect((await signIn(one)).status).toBe(302);
      const off = await two.request('PATCH', `/api/public/organizations/${embed.id}`, {
        key: owner.key,
        body: { fullEmbedEnabled: false },
      });
      expect(off.status).toBe(200);
      // A first sign-in, refused on the row as committed now.
      const email = `off-${randomBytes(4).toString('hex')}@example.com`;
      const claims = claimsFor(embed.id, { email });
      const refused = await one.request(
        'GET',
        `/api/sso/jwt?jwt=${encodeURIComponent(await signHs256(claims, embed.jwtSecret))}`,
        { headers: { referer: 'https://app.example.com/app', accept: 'application/json' } },
      );
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ title: 'Forbidden', code: 'full_embed_disabled' });
      // Counted once, and nothing left behind: neither a claim nor a user.
      expect(refused.headers.get('ratelimit-remaining')).toBe(String(LIMIT - 2));
      expect(await jtiUsed(embed.id, claims.jti)).toBe(false);
      const users = await one.deps.store.db
        .selectFrom('users')
        .select('id')
        .where('email', '=', email)
        .execute();
      expect(users).toEqual([]);
    });

    it('refuses a replay after the organization changed, and leaves the first use claimed', async () => {
      await newOrg();
      // Instance one has read the organization; the token is used on two.
      expect((await exchange(one, await signHs256(claimsFor(org.id), org.jwtSecret))).status).toBe(
        200,
      );
      const claims = claimsFor(org.id);
      const jwt = await signHs256(claims, org.jwtSecret);
      expect((await exchange(two, jwt)).status).toBe(200);
      await two.deps.store.db
        .updateTable('organizations')
        .set({ name: 'Changed under one' })
        .where('id', '=', org.id)
        .execute();
      // The replay on one: refused, and what it gave back was only its own (the hit), never
      // the claim the first use made.
      const replay = await exchange(one, jwt);
      expect(replay.status).toBe(401);
      expect(replay.body.error).toMatchObject({ title: 'Unauthorized', code: 'sso_token_invalid' });
      expect(await jtiUsed(org.id, claims.jti)).toBe(true);
      // Counted once (the limit is 3: the third exchange of this organization).
      expect(replay.headers.get('ratelimit-remaining')).toBe('0');
    });

    it('answers 401 on an instance that read an organization deleted since, leaving the jti unused', async () => {
      const owner = await one.newUser();
      const gone = await createOrg(one, owner.key, {
        embedAllowedOrigins: ['https://app.example.com'],
      });
      expect(
        (await exchange(one, await signHs256(claimsFor(gone.id), gone.jwtSecret))).status,
      ).toBe(200);
      const deleted = await two.request('DELETE', `/api/public/organizations/${gone.id}`, {
        key: owner.key,
      });
      expect(deleted.status).toBe(200);
      const claims = claimsFor(gone.id, {
        email: `d-${randomBytes(4).toString('hex')}@example.com`,
      });
      const refused = await exchange(one, await signHs256(claims, gone.jwtSecret));
      expect(refused.status).toBe(401);
      expect(refused.body.error).toMatchObject({
        title: 'Unauthorized',
        code: 'sso_token_invalid',
      });
      expect(await jtiUsed(gone.id, claims.jti)).toBe(false);
    });

    it('counts every exchange on both instances, answers 429 past the limit and leaves that jti unused', async () => {
      await newOrg();
      const remaining: (string | null)[] = [];
      for (const bridge of [one, two, one]) {
        const res = await exchange(bridge, await signHs256(claimsFor(org.id), org.jwtSecret));
        expect(res.status).toBe(200);
        remaining.push(res.headers.get('ratelimit-remaining'));
      }
      expect(remaining).toEqual(['2', '1', '0']);

      const claims = claimsFor(org.id);
      const jwt = await signHs256(claims, org.jwtSecret);
      const limited = await exchange(two, jwt);
      expect(limited.status).toBe(429);
      expect(limited.body.error).toMatchObject({ title: 'TooManyRequests', code: 'rate_limited' });
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(limited.headers.get('ratelimit-remaining')).toBe('0');
      // Refused before its jti was used: the token stays good for when the window ends.
      expect(await jtiUsed(org.id, claims.jti)).toBe(false);
    });

    it('refuses a replay on the other instance, and a refused origin counts its hit first', async () => {
      await newOrg();
      const claims = claimsFor(org.id);
      const jwt = await signHs256(claims, org.jwtSecret);
      expect((await exchange(one, jwt)).status).toBe(200);
      expect(await jtiUsed(org.id, claims.jti)).toBe(true);
      const replay = await exchange(two, jwt);
      expect(replay.status).toBe(401);
      expect(replay.body.error).toMatchObject({ title: 'Unauthorized', code: 'sso_token_invalid' });

      // A page of another origin: refused 403 with its hit counted, the jti left unused.
      const other = claimsFor(org.id);
      const refused = await exchange(one, await signHs256(other, org.jwtSecret), {
        origin: 'https://evil.example.net',
      });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ title: 'Forbidden', code: 'origin_not_allowed' });
      expect(refused.headers.get('ratelimit-remaining')).toBe(String(LIMIT - 3));
      expect(await jtiUsed(org.id, other.jti)).toBe(false);
      // The limit is spent (the replay counted too): the same refusal is now a 429.
      const spent = await exchange(two, await signHs256(claimsFor(org.id), org.jwtSecret), {
        origin: 'https://evil.example.net',
      });
      expect(spent.status).toBe(429);
      expect(spent.body.error).toMatchObject({ code: 'rate_limited' });
    });

    it('counts concurrent exchanges one by one: exactly the limit pass, each place given once', async () => {
      await newOrg();
      // Many at once on each instance: they go to the counter together (store/sso-exchange/).
      const tokens = await Promise.all(
        Array.from({ length: 12 }, () => signHs256(claimsFor(org.id), org.jwtSecret)),
      );
      const results = await Promise.all(tokens.map((jwt, i) => exchange(i % 2 ? one : two, jwt)));
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
      expect(statuses.filter((s) => s === 429)).toHaveLength(tokens.length - LIMIT);
      const places = results
        .filter((r) => r.status === 200)
        .map((r) => r.headers.get('ratelimit-remaining'))
        .sort();
      expect(places).toEqual(['0', '1', '2']);
    });

    it('accepts one of many concurrent uses of one jti on both instances', async () => {
      await newOrg();
      const claims = claimsFor(org.id);
      const jwt = await signHs256(claims, org.jwtSecret);
      const results = await Promise.all(
        Array.from({ length: LIMIT }, (_, i) => exchange(i % 2 ? one : two, jwt)),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, ...Array(LIMIT - 1).fill(401)]);
      for (const r of results.filter((r) => r.status === 401)) {
        expect(r.body.error).toMatchObject({ title: 'Unauthorized', code: 'sso_token_invalid' });
      }
      expect(await jtiUsed(org.id, claims.jti)).toBe(true);
    });

    it('takes a member whose groups changed through the transaction, and answers the new groups', async () => {
      await newOrg();
      const email = `g-${randomBytes(4).toString('hex')}@example.com`;
      const sign = async (groups: string[]) =>
        exchange(one, await signHs256(claimsFor(org.id, { email, groups }), org.jwtSecret));
      expect((await sign(['a'])).status).toBe(200);
      expect((await sign(['b'])).status).toBe(200);
      const [row] = await membershipsOf(org.id, email).select('m.groups').execute();
      expect(row?.groups).toBe(JSON.stringify(['b']));
    });
  },
);
