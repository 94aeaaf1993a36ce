import { dataOf, RenewedSession, SessionInfo, SsoSession } from '@bridgekit/contract';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';
import {
  claimsFor,
  createOrg,
  createSharedPg,
  handoffCodeOf,
  redeemCode,
  type SharedPg,
  signHs256,
  startBridgeOn,
} from './support';

const HOST = 'https://host.example.com';
const UNAUTHORIZED = 'Missing, invalid, revoked or expired credentials';

type Org = { id: string; slug: string; jwtSecret: string };

describe.each(ENGINES)('session lifecycle on %s', (engine) => {
  let bridge: TestBridge;
  let owner: { key: string };
  let org: Org;

  beforeAll(async () => {
    bridge = await startBridge(engine);
    owner = await bridge.newUser();
    org = await createOrg(bridge, owner.key, {
      fullEmbedEnabled: true,
      embedAllowedOrigins: [HOST],
    });
  });
  afterAll(() => bridge.stop());

  async function signIn(claims: Record<string, unknown> = {}) {
    const jwt = await signHs256(claimsFor(org.id, claims), org.jwtSecret);
    const res = await bridge.request('POST', '/api/sso/jwt', { body: { jwt } });
    if (res.status !== 200) throw new Error(`sign-in: ${res.status} ${res.text}`);
    return dataOf(SsoSession).parse(res.body).data;
  }

  /** A full-embed session: the GET sign-in framed by HOST, traded for its bearer token. */
  async function embedSignIn(claims: Record<string, unknown> = {}) {
    const jwt = await signHs256(claimsFor(org.id, claims), org.jwtSecret);
    const res = await bridge.request('GET', `/api/sso/jwt?jwt=${encodeURIComponent(jwt)}`, {
      headers: { referer: `${HOST}/app` },
    });
    if (res.status !== 302) throw new Error(`embed sign-in: ${res.status} ${res.text}`);
    const traded = await redeemCode(bridge, handoffCodeOf(res.headers.get('location')));
    if (traded.status !== 200) throw new Error(`embed session: ${traded.status} ${traded.text}`);
    return traded.body.data.sessionToken as string;
  }

  const getOrg = (token: string) =>
    bridge.request('GET', `/api/public/organizations/${org.id}`, { key: token });

  it('tells a session who it is, with the times it ends', async () => {
    const session = await signIn({ role: 'ADMIN', firstName: 'Ada' });
    const res = await bridge.request('GET', '/api/sso/session', { key: session.sessionToken });
    expect(res.status).toBe(200);
    const info = dataOf(SessionInfo).parse(res.body).data;
    expect(info.kind).toBe('kit');
    expect(info.member.id).toBe(session.member.id);
    expect(info.member.role).toBe('ADMIN');
    expect(info.organization.id).toBe(org.id);
    expect(info.expiresAt).toBe(session.expiresAt);
    expect(info.absoluteExpiresAt).toBe(session.absoluteExpiresAt);
    const hours = (Date.parse(info.absoluteExpiresAt) - Date.parse(info.signedInAt)) / 3_600_000;
    expect(hours).toBe(12);
  });

  it('answers GET /api/sso/session for an API key with 403', async () => {
    const res = await bridge.request('GET', '/api/sso/session', { key: owner.key });
    expect(res.status).toBe(403);
    expect(res.body.error).toEqual({
      title: 'Forbidden',
      code: 'session_required',
      detail: 'This needs a session token, not an API key',
    });
  });

  it('renews a session: same session, a new token, the same absolute limit', async () => {
    const session = await signIn();
    const res = await bridge.request('POST', '/api/sso/session/refresh', {
      key: session.sessionToken,
    });
    expect(res.status).toBe(200);
    const renewed = dataOf(RenewedSession).parse(res.body).data;
    expect(renewed.sessionToken).not.toBe(session.sessionToken);
    expect(decodeJwt(renewed.sessionToken).sid).toBe(decodeJwt(session.sessionToken).sid);
    expect(renewed.absoluteExpiresAt).toBe(session.absoluteExpiresAt);
    expect(Date.parse(renewed.expiresAt)).toBeGreaterThanOrEqual(Date.parse(session.expiresAt));
    expect((await getOrg(renewed.sessionToken)).status).toBe(200);
  });

  it('refuses renewal for an API key with 403', async () => {
    const res = await bridge.request('POST', '/api/sso/session/refresh', { key: owner.key });
    expect(res.status).toBe(403);
    expect(res.body.error.title).toBe('Forbidden');
  });

  it('refuses renewal without credentials with 401', async () => {
    const res = await bridge.request('POST', '/api/sso/session/refresh');
    expect(res.status).toBe(401);
    expect(res.body.error).toEqual({
      title: 'Unauthorized',
      code: 'invalid_credentials',
      detail: UNAUTHORIZED,
    });
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('ends a session on logout: 204, then every token of it is refused', async () => {
    const session = await signIn();
    const renewed = await bridge.request('POST', '/api/sso/session/refresh', {
      key: session.sessionToken,
    });
    const res = await bridge.request('POST', '/api/sso/logout', { key: session.sessionToken });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(res.headers.get('set-cookie')).toBeNull();
    for (const token of [session.sessionToken, renewed.body.data.sessionToken]) {
      const after = await getOrg(token);
      expect(after.status).toBe(401);
      expect(after.body.error.title).toBe('Unauthorized');
      const refresh = await bridge.request('POST', '/api/sso/session/refresh', { key: token });
      expect(refresh.status).toBe(401);
    }
  });

  it('answers a second logout of the same session with 204', async () => {
    const session = await signIn();
    expect(
      (await bridge.request('POST', '/api/sso/logout', { key: session.sessionToken })).status,
    ).toBe(204);
    expect(
      (await bridge.request('POST', '/api/sso/logout', { key: session.sessionToken })).status,
    ).toBe(204);
  });

  it('ends a full-embed session from its bearer token, and no cookie ends anything', async () => {
    const embed = await embedSignIn();
    const withCookie = await bridge.request('POST', '/api/sso/logout', {
      headers: { cookie: `bk_session=${embed}`, 'x-bridgekit-embed': '1' },
    });
    expect(withCookie.status).toBe(401);
    expect(withCookie.body.error).toMatchObject({
      title: 'Unauthorized',
      code: 'invalid_credentials',
    });
    expect((await getOrg(embed)).status).toBe(200);
    const res = await bridge.request('POST', '/api/sso/logout', { key: embed });
    expect(res.status).toBe(204);
    expect((await getOrg(embed)).status).toBe(401);
    expect((await bridge.request('POST', '/api/sso/session/refresh', { key: embed })).status).toBe(
      401,
    );
  });

  it('refuses logout with an API key or with nothing: 401', async () => {
    const withKey = await bridge.request('POST', '/api/sso/logout', { key: owner.key });
    expect(withKey.status).toBe(401);
    const bare = await bridge.request('POST', '/api/sso/logout');
    expect(bare.status).toBe(401);
    expect(bare.body.error).toEqual({
      title: 'Unauthorized',
      code: 'invalid_credentials',
      detail: UNAUTHORIZED,
    });
  });

  it('uses the role the membership has now, not the one at sign-in', async () => {
    const session = await signIn({ role: 'ADMIN' });
    await bridge.deps.store.db
      .updateTable('members')
      .set({ role: 'MEMBER' })
      .where('id', '=', session.member.id)
      .execute();
    const info = await bridge.request('GET', '/api/sso/session', { key: session.sessionToken });
    expect(info.body.data.member.role).toBe('MEMBER');
    const create = await bridge.request('POST', `/api/public/organizations/${org.id}/members`, {
      key: session.sessionToken,
      body: { email: 'someone@example.com', role: 'MEMBER' },
    });
    expect(create.status).toBe(403);
    expect(create.body.error.title).toBe('Forbidden');
    const renewed = await bridge.request('POST', '/api/sso/session/refresh', {
      key: session.sessionToken,
    });
    expect(decodeJwt(renewed.body.data.sessionToken).role).toBe('MEMBER');
  });

  it('refuses the session of a member removed since sign-in (401)', async () => {
    const session = await signIn();
    await bridge.deps.store.db.deleteFrom('members').where('id', '=', session.member.id).execute();
    const res = await getOrg(session.sessionToken);
    expect(res.status).toBe(401);
    expect(res.body.error.title).toBe('Unauthorized');
    // Signing in again makes a new membership: the old session stays ended.
    const again = await signIn({ email: session.member.user.email });
    expect((await getOrg(again.sessionToken)).status).toBe(200);
    expect((await getOrg(session.sessionToken)).status).toBe(401);
  });

  it('ends full-embed sessions, not kit sessions, when full embed is turned off', async () => {
    const embed = await embedSignIn();
    const kit = await signIn();
    expect((await getOrg(embed)).status).toBe(200);
    await bridge.deps.store.db
      .updateTable('organizations')
      .set({ fullEmbedEnabled: 0 })
      .where('id', '=', org.id)
      .execute();
    try {
      expect((await getOrg(embed)).status).toBe(401);
      expect(
        (await bridge.request('POST', '/api/sso/session/refresh', { key: embed })).status,
      ).toBe(401);
      expect((await getOrg(kit.sessionToken)).status).toBe(200);
    } finally {
      await bridge.deps.store.db
        .updateTable('organizations')
        .set({ fullEmbedEnabled: 1 })
        .where('id', '=', org.id)
        .execute();
    }
  });

  it('ends full-embed sessions when their framing origin leaves the allow-list', async () => {
    const embed = await embedSignIn();
    const setOrigins = (origins: string[]) =>
      bridge.deps.store.db
        .updateTable('organizations')
        .set({ embedAllowedOrigins: JSON.stringify(origins) })
        .where('id', '=', org.id)
        .execute();
    await setOrigins(['https://other.example.com']);
    try {
      expect((await getOrg(embed)).status).toBe(401);
    } finally {
      await setOrigins([HOST]);
    }
    expect((await getOrg(embed)).status).toBe(200);
  });
});

describe('session absolute limit', () => {
  let bridge: TestBridge;
  let org: Org;

  beforeAll(async () => {
    // 0.002 h: renewals stop 7 s after sign-in.
    bridge = await startBridge('sqlite', { BRIDGE_EMBED_SESSION_MAX_HOURS: '0.002' });
    const owner = await bridge.newUser();
    org = await createOrg(bridge, owner.key);
  });
  afterAll(() => bridge.stop());

  it('never renews past the limit, and refuses once it is reached', async () => {
    const jwt = await signHs256(claimsFor(org.id), org.jwtSecret);
    const session = (await bridge.request('POST', '/api/sso/jwt', { body: { jwt } })).body.data;
    expect(Date.parse(session.absoluteExpiresAt) - Date.now()).toBeLessThanOrEqual(7_200);
    expect(session.expiresAt).toBe(session.absoluteExpiresAt);
    const renewed = await bridge.request('POST', '/api/sso/session/refresh', {
      key: session.sessionToken,
    });
    expect(renewed.status).toBe(200);
    expect(renewed.body.data.expiresAt).toBe(session.absoluteExpiresAt);
    // The bridge runs in this process: its clock moves past the limit without waiting for it.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse(session.absoluteExpiresAt) + 500);
    const late = await bridge
      .request('POST', '/api/sso/session/refresh', { key: renewed.body.data.sessionToken })
      .finally(() => vi.useRealTimers());
    expect(late.status).toBe(401);
    expect(late.body.error).toEqual({
      title: 'Unauthorized',
      code: 'invalid_credentials',
      detail: UNAUTHORIZED,
    });
  });
});

describe('sessions across two bridges on one PostgreSQL', () => {
  let pg: SharedPg;
  let one: TestBridge;
  let two: TestBridge;
  let org: Org;

  beforeAll(async () => {
    pg = await createSharedPg();
    one = await startBridgeOn(pg);
    two = await startBridgeOn(pg);
    const owner = await one.newUser();
    org = await createOrg(one, owner.key);
  });
  afterAll(async () => {
    await one?.stop();
    await two?.stop();
    await pg?.drop();
  });

  async function signIn(claims: Record<string, unknown> = {}) {
    const jwt = await signHs256(claimsFor(org.id, claims), org.jwtSecret);
    return (await one.request('POST', '/api/sso/jwt', { body: { jwt } })).body.data as SsoSession;
  }

  it('renews on the second a session started on the first', async () => {
    const session = await signIn();
    const res = await two.request('POST', '/api/sso/session/refresh', {
      key: session.sessionToken,
    });
    expect(res.status).toBe(200);
    const read = await one.request('GET', `/api/public/organizations/${org.id}`, {
      key: res.body.data.sessionToken,
    });
    expect(read.status).toBe(200);
  });

  it('refuses on the second, at once, a session logged out on the first', async () => {
    const session = await signIn();
    const path = `/api/public/organizations/${org.id}`;
    expect((await two.request('GET', path, { key: session.sessionToken })).status).toBe(200);
    expect(
      (await one.request('POST', '/api/sso/logout', { key: session.sessionToken })).status,
    ).toBe(204);
    const after = await two.request('GET', path, { key: session.sessionToken });
    expect(after.status).toBe(401);
    expect(after.body.error.title).toBe('Unauthorized');
  });

  it('applies on the second, at once, a demotion written through the first', async () => {
    const session = await signIn({ role: 'ADMIN' });
    await one.deps.store.db
      .updateTable('members')
      .set({ role: 'MEMBER' })
      .where('id', '=', session.member.id)
      .execute();
    const res = await two.request('GET', '/api/sso/session', { key: session.sessionToken });
    expect(res.body.data.member.role).toBe('MEMBER');
  });
});
