import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestBridge } from '../../../test/support/bridge';
import {
  claimsFor,
  createOrg,
  createSharedPg,
  expectNoRedemptionLives,
  handoffCodeOf,
  logsOf,
  redeemCode,
  requestId,
  type SharedPg,
  signHs256,
  startBridgeOn,
} from './support';

const REDIS_URL = 'redis://127.0.0.1:6379';
const HOST = 'https://host.example.com';

describe.each([
  ['the store', {}],
  ['Redis', { REDIS_URL }],
] as const)('two bridges on one PostgreSQL, jti kept in %s', (where, env) => {
  let pg: SharedPg;
  let one: TestBridge;
  let two: TestBridge;
  let org: { id: string; jwtSecret: string };

  beforeAll(async () => {
    pg = await createSharedPg();
    // One after the other, so the second finds the migrations done.
    one = await startBridgeOn(pg, env);
    two = await startBridgeOn(pg, env);
    const owner = await one.newUser();
    org = await createOrg(one, owner.key, {
      fullEmbedEnabled: true,
      embedAllowedOrigins: [HOST],
    });
  });
  afterAll(async () => {
    await one?.stop();
    await two?.stop();
    await pg?.drop();
  });

  const exchange = (bridge: TestBridge, jwt: string, id = requestId()) =>
    bridge.request('POST', '/api/sso/jwt', { body: { jwt }, headers: { 'x-request-id': id } });

  it('refuses on the second a jti used on the first', async () => {
    const jwt = await signHs256(claimsFor(org.id), org.jwtSecret);
    expect((await exchange(one, jwt)).status).toBe(200);
    const id = requestId();
    const replay = await exchange(two, jwt, id);
    expect(replay.status).toBe(401);
    expect(replay.body.error).toMatchObject({ title: 'Unauthorized', code: 'sso_token_invalid' });
    const reasons = logsOf(two, id).map((e) => (e.err as { message?: string })?.message);
    expect(reasons).toContain('sso: jti_replayed');
  });

  it('refuses on the first a jti used on the second', async () => {
    const jwt = await signHs256(claimsFor(org.id), org.jwtSecret);
    expect((await exchange(two, jwt)).status).toBe(200);
    const replay = await exchange(one, jwt);
    expect(replay.status).toBe(401);
    expect(replay.body.error).toMatchObject({ title: 'Unauthorized', code: 'sso_token_invalid' });
  });

  it('accepts one of 20 concurrent uses of one token spread over both', async () => {
    const jwt = await signHs256(claimsFor(org.id), org.jwtSecret);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => exchange(i % 2 ? one : two, jwt)),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([200, ...Array(19).fill(401)]);
  });

  it('accepts on the second a session issued by the first', async () => {
    const jwt = await signHs256(claimsFor(org.id), org.jwtSecret);
    const res = await exchange(one, jwt);
    expect(res.status).toBe(200);
    const api = await two.request('GET', `/api/public/organizations/${org.id}`, {
      key: res.body.data.sessionToken,
    });
    expect(api.status).toBe(200);
    expect(api.body.data.id).toBe(org.id);
  });

  /** The full-embed sign-in redirect on `bridge`: its handoff code. */
  async function handoffOn(bridge: TestBridge, claims: Record<string, unknown> = {}) {
    const jwt = await signHs256(claimsFor(org.id, claims), org.jwtSecret);
    const res = await bridge.request('GET', `/api/sso/jwt?jwt=${jwt}&theme=dark&hide_chat=true`, {
      headers: { referer: `${HOST}/app` },
    });
    expect(res.status).toBe(302);
    return handoffCodeOf(res.headers.get('location'));
  }

  it('redeems on the second a handoff code issued by the first, once across both', async () => {
    const code = await handoffOn(one);
    const redeemed = await redeemCode(two, code);
    expect(redeemed.status).toBe(200);
    const replay = await redeemCode(one, code);
    expect(replay.status).toBe(401);
    expect(replay.body.error).toMatchObject({ title: 'Unauthorized', code: 'embed_code_used' });
    // The replay ended the session on both instances.
    for (const bridge of [one, two]) {
      const info = await bridge.request('GET', '/api/sso/session', {
        key: redeemed.body.data.sessionToken,
      });
      expect(info.status).toBe(401);
    }
  });

  it('lets no session live from 20 concurrent redemptions of one code spread over both', async () => {
    const code = await handoffOn(two);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => redeemCode(i % 2 ? one : two, code)),
    );
    await expectNoRedemptionLives(responses, [one, two]);
  });

  it('renews on one instance an embed session started on the other; a logout on either ends it on both', async () => {
    const redeemed = await redeemCode(one, await handoffOn(two));
    expect(redeemed.status).toBe(200);
    let token = redeemed.body.data.sessionToken as string;
    for (const bridge of [two, one, two]) {
      const renewed = await bridge.request('POST', '/api/sso/session/refresh', { key: token });
      expect(renewed.status).toBe(200);
      token = renewed.body.data.sessionToken;
    }
    expect((await one.request('POST', '/api/sso/logout', { key: token })).status).toBe(204);
    for (const bridge of [one, two]) {
      const path = `/api/public/organizations/${org.id}`;
      expect((await bridge.request('GET', path, { key: token })).status).toBe(401);
      expect(
        (await bridge.request('POST', '/api/sso/session/refresh', { key: token })).status,
      ).toBe(401);
    }
  });

  it('stops renewal on both at once when full embed is turned off through one', async () => {
    const redeemed = await redeemCode(two, await handoffOn(one));
    const token = redeemed.body.data.sessionToken as string;
    await one.deps.store.db
      .updateTable('organizations')
      .set({ fullEmbedEnabled: 0 })
      .where('id', '=', org.id)
      .execute();
    try {
      for (const bridge of [one, two]) {
        const renewed = await bridge.request('POST', '/api/sso/session/refresh', { key: token });
        expect(renewed.status).toBe(401);
      }
    } finally {
      await one.deps.store.db
        .updateTable('organizations')
        .set({ fullEmbedEnabled: 1 })
        .where('id', '=', org.id)
        .execute();
    }
  });

  if (where === 'Redis') {
    it('keeps the jti in Redis until the token expires, not in the store', async () => {
      const claims = claimsFor(org.id);
      expect((await exchange(one, await signHs256(claims, org.jwtSecret))).status).toBe(200);
      const redis = new Redis(REDIS_URL);
      try {
        const ttl = await redis.pttl(`bk:jti:${org.id}:${claims.jti}`);
        expect(ttl).toBeGreaterThan(9 * 60_000);
        expect(ttl).toBeLessThanOrEqual((600 + 30) * 1000);
      } finally {
        await redis.quit();
      }
      const rows = await one.deps.store.db
        .selectFrom('ssoJti')
        .selectAll()
        .where('jti', '=', claims.jti)
        .execute();
      expect(rows).toEqual([]);
    });
  } else {
    it('keeps the jti in the shared store until the token expires', async () => {
      const claims = claimsFor(org.id);
      expect((await exchange(one, await signHs256(claims, org.jwtSecret))).status).toBe(200);
      const rows = await two.deps.store.db
        .selectFrom('ssoJti')
        .selectAll()
        .where('jti', '=', claims.jti)
        .execute();
      expect(rows).toHaveLength(1);
      expect(Date.parse(rows[0]!.expiresAt)).toBe((claims.exp + 30) * 1000);
    });
  }
});
