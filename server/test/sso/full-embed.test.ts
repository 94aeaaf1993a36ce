import { createHash, randomBytes } from 'node:crypto';
import { dataOf, EmbedSession } from '@bridgekit/contract';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildUrlLikeSdk,
  type SdkPage,
  type SdkTheme,
  signLikeSdk,
} from '../../../test/support/basedash-sdk';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';
import { insertHandoff, recordHandoffSession, redeemHandoff } from '../../src/store/embed-handoffs';
import {
  claimsFor,
  createOrg,
  expectNoRedemptionLives,
  handoffCodeOf,
  redeemCode,
  SSO_DETAIL,
  signHs256,
} from './support';

const HOST = 'https://host.example.com';
const EVIL = 'https://evil.example';

type Org = { id: string; slug: string; jwtSecret: string };

const CODE_URL = /^\/embed\/orgs\/[a-z0-9-]+(\?[^#]*)?#code=[A-Za-z0-9_-]{43}&origin=[^&]+$/;
const hashOf = (code: string) => createHash('sha256').update(code).digest('base64url');

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

  // Every handoff code handed out, to check the log never holds one.
  const codes: string[] = [];
  async function handoffCode(org: Org, claims: Record<string, unknown> = {}) {
    const res = await signInPage(await tokenFor(org, claims), { referer: `${HOST}/dashboard` });
    if (res.status !== 302) throw new Error(`sign-in page: ${res.status} ${res.text}`);
    const code = handoffCodeOf(res.headers.get('location'));
    codes.push(code);
    return code;
  }

  describe('GET /api/sso/jwt', () => {
    it('redirects an allowed Referer with 302 to the embed page, a code in the fragment, no cookie', async () => {
      const res = await signInPage(await tokenFor(embedOrg), {
        referer: `${HOST}/reports?id=7`,
      });
      expect(res.status).toBe(302);
      const location = res.headers.get('location') ?? '';
      expect(location).toMatch(CODE_URL);
      expect(location.startsWith(`/embed/orgs/${embedOrg.slug}#code=`)).toBe(true);
      // The origin the bridge checked, for the page's messages where the browser can't say it.
      expect(new URLSearchParams(location.slice(location.indexOf('#') + 1)).get('origin')).toBe(
        HOST,
      );
      expect(location.endsWith(`&origin=${encodeURIComponent(HOST)}`)).toBe(true);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('set-cookie')).toBeNull();
    });

    it('stores only the hash of the code, for 30 s, bound to the organization, member and origin', async () => {
      const before = Date.now();
      const code = await handoffCode(embedOrg, { email: 'bound@example.com' });
      const rows = await bridge.deps.store.db
        .selectFrom('embedHandoffs')
        .selectAll()
        .where('codeHash', '=', hashOf(code))
        .execute();
      expect(rows).toHaveLength(1);
      const row = rows[0]!;
      expect(JSON.stringify(row)).not.toContain(code);
      expect(row).toMatchObject({
        organizationId: embedOrg.id,
        framingOrigin: HOST,
        usedAt: null,
        sessionId: null,
      });
      const member = await bridge.deps.store.db
        .selectFrom('members as m')
        .innerJoin('users as u', 'u.id', 'm.userId')
        .select('m.id')
        .where('u.email', '=', 'bound@example.com')
        .executeTakeFirstOrThrow();
      expect(row.memberId).toBe(member.id);
      const ttl = Date.parse(row.expiresAt) - before;
      expect(ttl).toBeGreaterThan(28_000);
      expect(ttl).toBeLessThanOrEqual(31_000);
    });

    it('redirects an allowed Origin with 302', async () => {
      const res = await signInPage(await tokenFor(embedOrg), { origin: HOST });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toMatch(CODE_URL);
    });

    // Exactly what Basedash's SDK sends: every option, "true"/"false", at most one page id.
    it.each([
      ['theme=auto&hide_org_name=false', '?theme=auto'],
      ['theme=dark&hide_org_name=true', '?theme=dark&hide_org_name=true'],
      ['theme=light&hide_org_name=true', '?hide_org_name=true'],
      ['theme=light&hide_org_name=false', ''],
      ['', ''],
      ['theme=blue&hide_org_name=yes', ''],
      ['theme=dark&theme=light', ''],
      [
        'theme=dark&hide_chat=true&hide_dashboards=true&hide_insights=true&hide_automations=true&hide_models=true&hide_suggested_prompts=true&hide_sidebar=true&dashboard_id=dash_1',
        '?theme=dark',
      ],
      ['chat_id=c1&insight_id=i&automation_id=a&model_id=m', ''],
      ['utm_source=mail&future_option=1&x%5By%5D=2', ''],
    ])('accepts %s and carries %s to the page', async (options, pageQuery) => {
      const jwt = await tokenFor(embedOrg);
      queried.push(jwt);
      const res = await bridge.request(
        'GET',
        `/api/sso/jwt?jwt=${encodeURIComponent(jwt)}${options ? `&${options}` : ''}`,
        { headers: { referer: `${HOST}/` } },
      );
      expect(res.status).toBe(302);
      const location = res.headers.get('location') ?? '';
      expect(location).toMatch(CODE_URL);
      expect(location.slice(0, location.indexOf('#'))).toBe(
        `/embed/orgs/${embedOrg.slug}${pageQuery}`,
      );
      codes.push(handoffCodeOf(location));
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

    it.each([
      ['a missing jwt', '?theme=dark', 'Required', 'required'],
      ['an empty jwt', '?jwt=&theme=dark', 'Required', 'required'],
      [
        'two jwts',
        '?jwt=a.b.c&jwt=d.e.f',
        'Invalid input: expected string, received array',
        'invalid_type',
      ],
      [
        'a jwt over 8192 characters',
        `?jwt=${'a'.repeat(8193)}`,
        'Must be at most 8192 characters',
        'too_long',
      ],
    ])(
      'answers %s with 400 ValidationError on jwt, options or not',
      async (_, query, message, code) => {
        const res = await bridge.request('GET', `/api/sso/jwt${query}`, {
          headers: { referer: HOST },
        });
        expect(res.status).toBe(400);
        expect(res.body.error).toEqual({
          title: 'ValidationError',
          code: 'validation_failed',
          detail: 'Query string is invalid: jwt',
          fieldErrors: { jwt: message },
          fieldCodes: { jwt: code },
        });
      },
    );

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
    it('serves the same page to anyone, naming no member nor organization, framed by the list', async () => {
      const res = await bridge.request('GET', `/embed/orgs/${embedOrg.slug}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('content-security-policy')).toContain(`frame-ancestors ${HOST}`);
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('set-cookie')).toBeNull();
      const data = /data-embed="([^"]+)"/.exec(res.text)?.[1]?.replace(/&quot;/g, '"');
      expect(JSON.parse(data ?? '{}')).toEqual({
        slug: embedOrg.slug,
        frameOrigins: [HOST],
        theme: 'light',
        hideOrgName: false,
      });
      expect(res.text).toContain('<html lang="en" data-bk-page-theme="light">');
      expect(res.text).not.toContain('mem_');
    });

    it.each([
      ['?theme=dark&hide_org_name=true', 'dark', true],
      ['?theme=auto', 'auto', false],
      ['?theme=sepia&hide_org_name=1&other=x', 'light', false],
    ])('takes %s as theme %s, hideOrgName %s', async (query, theme, hideOrgName) => {
      const res = await bridge.request('GET', `/embed/orgs/${embedOrg.slug}${query}`);
      expect(res.status).toBe(200);
      expect(res.text).toContain(`data-bk-page-theme="${theme}"`);
      const data = /data-embed="([^"]+)"/.exec(res.text)?.[1]?.replace(/&quot;/g, '"');
      expect(JSON.parse(data ?? '{}')).toMatchObject({ theme, hideOrgName });
    });

    it("sends frame-ancestors 'none' for an organization with an empty list", async () => {
      const res = await bridge.request('GET', `/embed/orgs/${emptyListOrg.slug}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    });

    it('answers 404 for an organization without full embed, as for an unknown slug', async () => {
      for (const slug of [noEmbedOrg.slug, 'no-such-org']) {
        const res = await bridge.request('GET', `/embed/orgs/${slug}`);
        expect(res.status).toBe(404);
        expect(res.text).toContain('No such embed page');
        expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      }
    });
  });

  describe('POST /embed/session', () => {
    it('trades the code for a bearer token of an embed session that works on the public API', async () => {
      const code = await handoffCode(embedOrg, { email: 'traded@example.com' });
      const res = await redeemCode(bridge, code);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('set-cookie')).toBeNull();
      const session = dataOf(EmbedSession).parse(res.body).data;
      expect(session).toMatchObject({
        organizationId: embedOrg.id,
        organizationName: expect.any(String),
        framingOrigin: HOST,
      });
      const info = await bridge.request('GET', '/api/sso/session', { key: session.sessionToken });
      expect(info.status).toBe(200);
      expect(info.body.data).toMatchObject({ kind: 'embed' });
      expect(info.body.data.member).toMatchObject({
        id: session.memberId,
        user: { email: 'traded@example.com' },
      });
      const api = await bridge.request('GET', `/api/public/organizations/${embedOrg.id}`, {
        key: session.sessionToken,
      });
      expect(api.status).toBe(200);
    });

    it('accepts the code with the framing origin the browser reports', async () => {
      const res = await redeemCode(bridge, await handoffCode(embedOrg), { framingOrigin: HOST });
      expect(res.status).toBe(200);
    });

    it('refuses a replayed code with 401 embed_code_used and ends the session the first use started', async () => {
      const code = await handoffCode(embedOrg);
      const first = await redeemCode(bridge, code);
      expect(first.status).toBe(200);
      const replay = await redeemCode(bridge, code);
      expect(replay.status).toBe(401);
      expect(replay.body.error).toEqual({
        title: 'Unauthorized',
        code: 'embed_code_used',
        detail: 'This sign-in code was already used',
      });
      const info = await bridge.request('GET', '/api/sso/session', {
        key: first.body.data.sessionToken,
      });
      expect(info.status).toBe(401);
    });

    it('ends the session of a redemption the replay overtook, before it was recorded', async () => {
      // The store's two halves of a redemption, with a replay in between: the replay finds no
      // session to end, so recording one must say the code was presented again.
      const db = bridge.deps.store.db;
      const now = new Date();
      /** A handoff code stored for the test, by its hash. */
      const storedCode = async () => {
        const codeHash = `test-${randomBytes(8).toString('hex')}`;
        await insertHandoff(
          db,
          {
            codeHash,
            organizationId: embedOrg.id,
            memberId: 'mem_unused',
            framingOrigin: HOST,
            expiresAt: new Date(now.getTime() + 30_000).toISOString(),
          },
          now,
        );
        return codeHash;
      };
      const codeHash = await storedCode();
      expect((await redeemHandoff(db, codeHash, now)).status).toBe('redeemed');
      const replay = await redeemHandoff(db, codeHash, now);
      expect(replay).toMatchObject({ status: 'used', row: { sessionId: null } });
      expect(await recordHandoffSession(db, codeHash, 'ses_overtaken')).toBe(false);
      // And the other order: recorded first, then a replay gets the session to end.
      const second = await storedCode();
      expect((await redeemHandoff(db, second, now)).status).toBe('redeemed');
      expect(await recordHandoffSession(db, second, 'ses_recorded')).toBe(true);
      expect(await redeemHandoff(db, second, now)).toMatchObject({
        status: 'used',
        row: { sessionId: 'ses_recorded' },
      });
    });

    it('refuses a code presented from another framing origin with 403, and burns it', async () => {
      const code = await handoffCode(embedOrg);
      const res = await redeemCode(bridge, code, { framingOrigin: EVIL });
      expect(res.status).toBe(403);
      expect(res.body.error).toEqual({
        title: 'Forbidden',
        code: 'embed_origin_mismatch',
        detail: 'This page is framed by another site than the sign-in',
      });
      const again = await redeemCode(bridge, code, { framingOrigin: HOST });
      expect(again.status).toBe(401);
      expect(again.body.error.code).toBe('embed_code_used');
    });

    it.each([
      [
        'at top level (no framing origin)',
        { framingOrigin: undefined },
        {},
        'embed_framing_required',
        'A sign-in code redeems only inside a frame of an allowed origin',
      ],
      [
        'from a foreign Origin',
        {},
        { origin: EVIL },
        'embed_origin_foreign',
        "A sign-in code redeems only from the bridge's own embed page",
      ],
      [
        'from a foreign Origin with no framing origin',
        { framingOrigin: undefined },
        { origin: EVIL },
        'embed_origin_foreign',
        "A sign-in code redeems only from the bridge's own embed page",
      ],
      [
        'without an Origin',
        {},
        { origin: '' },
        'embed_origin_foreign',
        "A sign-in code redeems only from the bridge's own embed page",
      ],
      [
        'from a cross-site page, as the browser says (Sec-Fetch-Site)',
        {},
        { 'sec-fetch-site': 'cross-site' },
        'embed_origin_foreign',
        "A sign-in code redeems only from the bridge's own embed page",
      ],
      [
        'from the bridge origin on another host',
        {},
        { origin: 'http://bridge.other.example' },
        'embed_origin_foreign',
        "A sign-in code redeems only from the bridge's own embed page",
      ],
    ])(
      'refuses a code redeemed %s with 403, and burns it',
      async (_, body, headers, code, detail) => {
        const handoff = await handoffCode(embedOrg);
        const res = await redeemCode(bridge, handoff, body, headers);
        expect(res.status).toBe(403);
        expect(res.body.error).toEqual({ title: 'Forbidden', code, detail });
        expect(res.body.data).toBeUndefined();
        // Burnt: the right origin, framed by the sign-in's origin, gets nothing from it either.
        const again = await redeemCode(bridge, handoff, { framingOrigin: HOST });
        expect(again.status).toBe(401);
        expect(again.body.error.code).toBe('embed_code_used');
      },
    );

    it('accepts the same-origin Sec-Fetch-Site where a proxy rewrote the Host', async () => {
      const res = await redeemCode(
        bridge,
        await handoffCode(embedOrg),
        {},
        { origin: 'https://bridge.example.com', 'sec-fetch-site': 'same-origin' },
      );
      expect(res.status).toBe(200);
    });

    it.each([
      ['an unknown code', 'A'.repeat(43)],
      ['a code of the wrong shape', 'not-a-code'],
      ['a code with a character too many', `${'A'.repeat(43)}B`],
    ])('refuses %s with 401 embed_code_invalid', async (_, code) => {
      const res = await redeemCode(bridge, code);
      expect(res.status).toBe(401);
      expect(res.body.error).toEqual({
        title: 'Unauthorized',
        code: 'embed_code_invalid',
        detail: 'Invalid or expired sign-in code',
      });
    });

    it('refuses an expired code with 401 embed_code_invalid', async () => {
      const code = await handoffCode(embedOrg);
      await bridge.deps.store.db
        .updateTable('embedHandoffs')
        .set({ expiresAt: new Date(Date.now() - 1000).toISOString() })
        .where('codeHash', '=', hashOf(code))
        .execute();
      const res = await redeemCode(bridge, code);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('embed_code_invalid');
    });

    it('refuses the code once full embed is turned off or the member removed after the redirect', async () => {
      const org = await createOrg(bridge, (await bridge.newUser()).key, {
        fullEmbedEnabled: true,
        embedAllowedOrigins: [HOST],
      });
      const owner = await bridge.deps.store.db
        .selectFrom('members')
        .select('id')
        .where('organizationId', '=', org.id)
        .execute();
      const code = await handoffCode(org);
      const removed = await bridge.deps.store.db
        .deleteFrom('members')
        .where('organizationId', '=', org.id)
        .where(
          'id',
          'not in',
          owner.map((m) => m.id),
        )
        .executeTakeFirst();
      expect(Number(removed.numDeletedRows)).toBe(1);
      const res = await redeemCode(bridge, code);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('embed_code_invalid');

      const next = await handoffCode(org);
      await bridge.deps.store.db
        .updateTable('organizations')
        .set({ fullEmbedEnabled: 0 })
        .where('id', '=', org.id)
        .execute();
      const off = await redeemCode(bridge, next);
      expect(off.status).toBe(401);
      expect(off.body.error.code).toBe('embed_code_invalid');
    });

    it('lets at most one of 20 concurrent redemptions of one code win, and no session live', async () => {
      const code = await handoffCode(embedOrg);
      const responses = await Promise.all(
        Array.from({ length: 20 }, () => redeemCode(bridge, code)),
      );
      await expectNoRedemptionLives(responses, [bridge]);
    });

    it('answers 403 without X-Bridgekit-Embed, leaving the code usable', async () => {
      const code = await handoffCode(embedOrg);
      const res = await bridge.request('POST', '/embed/session', { body: { code } });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ title: 'Forbidden', code: 'embed_header_required' });
      expect((await redeemCode(bridge, code)).status).toBe(200);
    });

    it.each([
      ['no code', {}, 'code', 'Required', 'required'],
      ['an empty code', { code: '' }, 'code', 'Required', 'required'],
      [
        'a code that is a number',
        { code: 42 },
        'code',
        'Invalid input: expected string, received number',
        'invalid_type',
      ],
      [
        'a code over 128 characters',
        { code: 'a'.repeat(129) },
        'code',
        'Must be at most 128 characters',
        'too_long',
      ],
      [
        'a framingOrigin over 300 characters',
        { code: 'a', framingOrigin: `https://${'a'.repeat(300)}` },
        'framingOrigin',
        'Must be at most 300 characters',
        'too_long',
      ],
      [
        'an unknown field',
        { code: 'a', cookie: 'bk_session=x' },
        'cookie',
        'Unknown field',
        'unknown_field',
      ],
    ])(
      'answers %s with 400 ValidationError on that field',
      async (_, body, field, message, fieldCode) => {
        const res = await bridge.request('POST', '/embed/session', {
          body,
          headers: { 'x-bridgekit-embed': '1' },
        });
        expect(res.status).toBe(400);
        expect(res.body.error).toEqual({
          title: 'ValidationError',
          code: 'validation_failed',
          detail: `Request body is invalid: ${field}`,
          fieldErrors: { [field]: message },
          fieldCodes: { [field]: fieldCode },
        });
      },
    );

    it('ignores a session cookie: there is none any more', async () => {
      const res = await bridge.request('POST', '/embed/session', {
        body: { code: 'A'.repeat(43) },
        headers: { 'x-bridgekit-embed': '1', cookie: 'bk_session=eyJhbGciOiJIUzI1NiJ9.e30.x' },
      });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('embed_code_invalid');
    });
  });

  it('never writes a queried jwt nor a handoff code to the log', async () => {
    // Success, refusal, bad token, HTML and JSON errors all ran above; one more of each here.
    await handoffCode(embedOrg);
    await signInPage(await tokenFor(embedOrg), { origin: EVIL, accept: 'text/html' });
    await signInPage(await signHs256(claimsFor(embedOrg.id), 'wrong-secret'));
    expect(queried.length).toBeGreaterThan(3);
    const log = bridge.logs.join('\n');
    for (const jwt of queried) {
      expect(log).not.toContain(jwt);
      expect(log).not.toContain(jwt.split('.')[2]);
    }
    expect(log).toContain('jwt=[redacted]');
    expect(codes.length).toBeGreaterThan(10);
    for (const code of codes) expect(log).not.toContain(code);
  });
});

describe('unknown parameters on the full-embed sign-in URL', () => {
  let bridge: TestBridge;
  let org: Org;

  beforeAll(async () => {
    bridge = await startBridge('sqlite', { LOG_LEVEL: 'debug' });
    const owner = await bridge.newUser();
    org = await createOrg(bridge, owner.key, {
      fullEmbedEnabled: true,
      embedAllowedOrigins: [HOST],
    });
  });
  afterAll(() => bridge.stop());

  it('are logged at debug by name (no value), and never refused', async () => {
    const jwt = await signHs256(claimsFor(org.id), org.jwtSecret);
    const res = await bridge.request(
      'GET',
      `/api/sso/jwt?jwt=${jwt}&theme=dark&hide_chat=true&future_flag=secret-value&utm_source=mail`,
      { headers: { referer: `${HOST}/`, 'x-request-id': 'unknown-params-1' } },
    );
    expect(res.status).toBe(302);
    const lines = bridge.logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.reqId === 'unknown-params-1');
    const ignored = lines.find((entry) => entry.msg === 'sso: unknown query parameters ignored');
    expect(ignored).toMatchObject({ level: 20, ignored: ['future_flag', 'utm_source'] });
    expect(JSON.stringify(ignored)).not.toContain('secret-value');
    // The request line shows the URL as usual, the token redacted.
    const request = lines.find((entry) => entry.msg === 'request');
    expect(String(request?.url)).toContain('jwt=[redacted]');
  });
});

describe.each(ENGINES)('URLs as Basedash’s SDK builds them, on %s', (engine) => {
  let bridge: TestBridge;
  let org: Org;

  beforeAll(async () => {
    bridge = await startBridge(engine);
    const owner = await bridge.newUser();
    org = await createOrg(bridge, owner.key, {
      fullEmbedEnabled: true,
      embedAllowedOrigins: [HOST],
    });
  });
  afterAll(() => bridge.stop());

  const flag = fc.option(fc.boolean(), { nil: undefined });
  const options = fc.record({
    theme: fc.option(fc.constantFrom('light', 'dark', 'auto') as fc.Arbitrary<SdkTheme>, {
      nil: undefined,
    }),
    hideOrgName: flag,
    hideChat: flag,
    hideDashboards: flag,
    hideInsights: flag,
    hideAutomations: flag,
    hideModels: flag,
    hideSuggestedPrompts: flag,
    hideSidebar: flag,
  });
  const page = fc.option(
    fc.record({
      type: fc.constantFrom(
        'chat',
        'dashboard',
        'insight',
        'automation',
        'model',
      ) as fc.Arbitrary<SdkPage>,
      id: fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/),
    }),
    { nil: undefined },
  );

  it('signs in with any combination of options and initial page, carrying theme and hide_org_name', async () => {
    await fc.assert(
      fc.asyncProperty(options, page, async (sdkOptions, initialPage) => {
        const token = await signLikeSdk({
          secret: org.jwtSecret,
          orgId: org.id,
          user: { email: 'sdk-user@example.com', firstName: 'Sdk', lastName: 'User' },
        });
        const url = new URL(
          buildUrlLikeSdk({
            token,
            instanceUrl: bridge.url,
            options: sdkOptions,
            ...(initialPage ? { initialPage } : {}),
          }),
        );
        const res = await bridge.request('GET', `${url.pathname}${url.search}`, {
          headers: { referer: `${HOST}/` },
        });
        expect(res.status).toBe(302);
        const location = res.headers.get('location') ?? '';
        const theme = sdkOptions.theme ?? 'auto';
        const query = new URLSearchParams();
        if (theme !== 'light') query.set('theme', theme);
        if (sdkOptions.hideOrgName) query.set('hide_org_name', 'true');
        const expected = `/embed/orgs/${org.slug}${query.size ? `?${query}` : ''}#code=`;
        expect(location.slice(0, location.indexOf('#code=') + 6)).toBe(expected);
      }),
      { numRuns: 60 },
    );
  }, 60_000);
});
