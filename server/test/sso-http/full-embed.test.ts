import { dataOf, EmbedSession } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../support/bridge';
import { claimsFor, createOrg, SSO_DETAIL, signHs256 } from './support';

const HOST = 'https://host.example.com';
const EVIL = 'https://evil.example';

type Org = { id: string; slug: string; jwtSecret: string };

const cookieOf = (setCookie: string | null) => {
  const pair = setCookie?.split(';')[0] ?? '';
  if (!pair.startsWith('bk_session=')) throw new Error(`no session cookie in ${setCookie}`);
  return pair;
};

describe.each(ENGINES)('full embed on %s', (engine) => {
  let bridge: TestBridge;
  let embedOrg: Org;
  let noEmbedOrg: Org;
  let emptyListOrg: Org;
  // Every jwt sent in a query string, to check the log never holds one.
  const queried: string[] = [];

  beforeAll(async () => {
    bridge = await startBridge(engine);
    const owner = await bridge.newUser();
    embedOrg = await createOrg(bridge, owner.key, {
      fullEmbedEnabled: true,
      embedAllowedOrigins: [HOST],
    });
    noEmbedOrg = await createOrg(bridge, owner.key, {
      fullEmbedEnabled: false,
      embedAllowedOrigins: [HOST],
    });
    emptyListOrg = await createOrg(bridge, owner.key, {
      fullEmbedEnabled: true,
      embedAllowedOrigins: [],
    });
  });
  afterAll(() => bridge.stop());

  const tokenFor = (org: Org, extra: Record<string, unknown> = {}) =>
    signHs256(claimsFor(org.id, extra), org.jwtSecret);

  function signInPage(jwt: string, headers: Record<string, string> = {}) {
    queried.push(jwt);
    return bridge.request('GET', `/api/sso/jwt?jwt=${encodeURIComponent(jwt)}`, { headers });
  }

  async function embedCookie(org: Org) {
    const res = await signInPage(await tokenFor(org), { referer: `${HOST}/dashboard` });
    if (res.status !== 302) throw new Error(`sign-in page: ${res.status} ${res.text}`);
    return cookieOf(res.headers.get('set-cookie'));
  }

  describe('GET /api/sso/jwt', () => {
    it('redirects an allowed Referer with 302 to the embed page', async () => {
      const res = await signInPage(await tokenFor(embedOrg), {
        referer: `${HOST}/reports?id=7`,
      });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe(`/embed/orgs/${embedOrg.slug}`);
      expect(res.headers.get('cache-control')).toBe('no-store');
    });

    it('sets an HttpOnly, Secure, SameSite=None, Partitioned session cookie', async () => {
      const res = await signInPage(await tokenFor(embedOrg), { referer: `${HOST}/` });
      expect(res.status).toBe(302);
      const cookie = res.headers.get('set-cookie') ?? '';
      const attributes = cookie.split(';').map((part) => part.trim());
      expect(attributes[0]).toMatch(/^bk_session=eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
      expect(attributes).toEqual(
        expect.arrayContaining(['HttpOnly', 'Secure', 'SameSite=None', 'Partitioned', 'Path=/']),
      );
      const maxAge = Number(attributes.find((a) => a.startsWith('Max-Age='))?.slice(8));
      expect(maxAge).toBeGreaterThan(14 * 60);
      expect(maxAge).toBeLessThanOrEqual(15 * 60);
    });

    it('redirects an allowed Origin with 302', async () => {
      const res = await signInPage(await tokenFor(embedOrg), { origin: HOST });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe(`/embed/orgs/${embedOrg.slug}`);
    });

    it('answers 403 when full embed is not enabled', async () => {
      const res = await signInPage(await tokenFor(noEmbedOrg), { referer: `${HOST}/` });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ title: 'Forbidden', code: 'full_embed_disabled' });
      expect(res.headers.get('set-cookie')).toBeNull();
    });

    it('answers 403 to a disallowed Origin', async () => {
      const res = await signInPage(await tokenFor(embedOrg), { origin: EVIL });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ title: 'Forbidden', code: 'framing_not_allowed' });
      expect(res.headers.get('set-cookie')).toBeNull();
    });

    it('answers 403 to a disallowed Referer', async () => {
      const res = await signInPage(await tokenFor(embedOrg), { referer: `${EVIL}/page` });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ title: 'Forbidden', code: 'framing_not_allowed' });
    });

    it('answers 403 to a disallowed Origin even with an allowed Referer', async () => {
      const res = await signInPage(await tokenFor(embedOrg), {
        origin: EVIL,
        referer: `${HOST}/`,
      });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ title: 'Forbidden', code: 'framing_not_allowed' });
    });

    it('answers 403 without Origin and Referer', async () => {
      const res = await signInPage(await tokenFor(embedOrg));
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ title: 'Forbidden', code: 'framing_not_allowed' });
    });

    it('answers 403 for an organization with an empty origin list', async () => {
      const res = await signInPage(await tokenFor(emptyListOrg), { referer: `${HOST}/` });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ title: 'Forbidden', code: 'framing_not_allowed' });
    });

    it('answers an invalid token with 401 and the generic detail', async () => {
      const res = await signInPage(await signHs256(claimsFor(embedOrg.id), 'wrong-secret'), {
        referer: `${HOST}/`,
      });
      expect(res.status).toBe(401);
      expect(res.body.error).toEqual({
        title: 'Unauthorized',
        code: 'sso_token_invalid',
        detail: SSO_DETAIL,
      });
    });

    it('answers a missing jwt with 400 ValidationError on jwt', async () => {
      const res = await bridge.request('GET', '/api/sso/jwt', { headers: { referer: HOST } });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ title: 'ValidationError', code: 'validation_failed' });
      expect(res.body.error.fieldErrors).toHaveProperty('jwt');
    });

    it('gives a JSON client the error envelope', async () => {
      const res = await signInPage(await tokenFor(embedOrg), {
        origin: EVIL,
        accept: 'application/json',
      });
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body.error).toMatchObject({ title: 'Forbidden', code: 'framing_not_allowed' });
    });

    it('gives a browser asking for HTML a 403 page', async () => {
      const res = await signInPage(await tokenFor(embedOrg), {
        origin: EVIL,
        accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
      });
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.text).toMatch(/^<!doctype html>/);
      expect(res.text).toContain('<h1>Forbidden</h1>');
    });

    it('gives a browser asking for HTML a 401 page for an invalid token', async () => {
      const res = await signInPage(await signHs256(claimsFor(embedOrg.id), 'wrong-secret'), {
        referer: `${HOST}/`,
        accept: 'text/html',
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.text).toContain('<h1>Unauthorized</h1>');
      expect(res.text).toContain(SSO_DETAIL);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    });

    it('gives a browser asking for HTML a 400 page for a missing jwt', async () => {
      const res = await bridge.request('GET', '/api/sso/jwt', {
        headers: { referer: HOST, accept: 'text/html' },
      });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    });

    it('refuses a replayed jti', async () => {
      const jwt = await tokenFor(embedOrg);
      expect((await signInPage(jwt, { referer: `${HOST}/` })).status).toBe(302);
      const replay = await signInPage(jwt, { referer: `${HOST}/` });
      expect(replay.status).toBe(401);
      expect(replay.body.error).toMatchObject({ title: 'Unauthorized', code: 'sso_token_invalid' });
    });
  });

  describe('GET /embed/orgs/{slug}', () => {
    it('serves the page for the session cookie with frame-ancestors from the list', async () => {
      const cookie = await embedCookie(embedOrg);
      const res = await bridge.request('GET', `/embed/orgs/${embedOrg.slug}`, {
        headers: { cookie },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('content-security-policy')).toContain(`frame-ancestors ${HOST}`);
    });

    it('answers without the cookie with a 401 page that keeps the CSP', async () => {
      const res = await bridge.request('GET', `/embed/orgs/${embedOrg.slug}`);
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.text).toContain('<h1>Unauthorized</h1>');
      expect(res.headers.get('content-security-policy')).toContain(`frame-ancestors ${HOST}`);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    });

    it("answers another organization's cookie with a 401 page", async () => {
      const jwt = await tokenFor(emptyListOrg);
      const exchanged = await bridge.request('POST', '/api/sso/jwt', { body: { jwt } });
      const res = await bridge.request('GET', `/embed/orgs/${embedOrg.slug}`, {
        headers: { cookie: `bk_session=${exchanged.body.data.sessionToken}` },
      });
      expect(res.status).toBe(401);
    });

    it("sends frame-ancestors 'none' for an organization with an empty list", async () => {
      // No framing origin can sign in here, so the session comes from the cookieless exchange.
      const jwt = await tokenFor(emptyListOrg);
      const exchanged = await bridge.request('POST', '/api/sso/jwt', { body: { jwt } });
      const res = await bridge.request('GET', `/embed/orgs/${emptyListOrg.slug}`, {
        headers: { cookie: `bk_session=${exchanged.body.data.sessionToken}` },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    });

    it('answers 404 for an organization without full embed', async () => {
      const res = await bridge.request('GET', `/embed/orgs/${noEmbedOrg.slug}`);
      expect(res.status).toBe(404);
    });
  });

  describe('POST /embed/session', () => {
    it('trades the cookie for a bearer token that works on the public API', async () => {
      const cookie = await embedCookie(embedOrg);
      const res = await bridge.request('POST', '/embed/session', {
        headers: { cookie, 'x-bridgekit-embed': '1' },
      });
      expect(res.status).toBe(200);
      const session = dataOf(EmbedSession).parse(res.body).data;
      expect(session.organizationId).toBe(embedOrg.id);
      const api = await bridge.request('GET', `/api/public/organizations/${embedOrg.id}`, {
        key: session.sessionToken,
      });
      expect(api.status).toBe(200);
      expect(api.body.data.id).toBe(embedOrg.id);
    });

    it('answers 403 without X-Bridgekit-Embed', async () => {
      const cookie = await embedCookie(embedOrg);
      const res = await bridge.request('POST', '/embed/session', { headers: { cookie } });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ title: 'Forbidden', code: 'embed_header_required' });
    });

    it('answers 401 without the cookie', async () => {
      const res = await bridge.request('POST', '/embed/session', {
        headers: { 'x-bridgekit-embed': '1' },
      });
      expect(res.status).toBe(401);
      expect(res.body.error).toMatchObject({ title: 'Unauthorized', code: 'session_ended' });
    });

    it('answers 401 for a tampered cookie', async () => {
      const cookie = await embedCookie(embedOrg);
      const res = await bridge.request('POST', '/embed/session', {
        headers: { cookie: `${cookie.slice(0, -3)}abc`, 'x-bridgekit-embed': '1' },
      });
      expect(res.status).toBe(401);
      expect(res.body.error).toMatchObject({ title: 'Unauthorized', code: 'session_ended' });
    });
  });

  it('never writes a queried jwt to the log', async () => {
    // Success, refusal, bad token, HTML and JSON errors all ran above; one more of each here.
    await embedCookie(embedOrg);
    await signInPage(await tokenFor(embedOrg), { origin: EVIL, accept: 'text/html' });
    await signInPage(await signHs256(claimsFor(embedOrg.id), 'wrong-secret'));
    expect(queried.length).toBeGreaterThan(3);
    const log = bridge.logs.join('\n');
    for (const jwt of queried) {
      expect(log).not.toContain(jwt);
      expect(log).not.toContain(jwt.split('.')[2]);
    }
    expect(log).toContain('jwt=[redacted]');
  });
});
