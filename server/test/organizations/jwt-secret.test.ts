import { dataOf, OrganizationWithSecret } from '@bridgekit/contract';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';
import {
  claimsFor,
  createOrg,
  embedSignIn,
  kitSignIn,
  SSO_DETAIL,
  signHs256,
} from '../sso/support';

const DAY_MS = 24 * 3600 * 1000;
const JWT_SECRET = /^[A-Za-z0-9_-]{43}$/;
const UNKNOWN_ORG = 'org_00000000000000000000000000';

type User = { key: string; userId: string; email: string };

describe.each(ENGINES)('POST /organizations/{orgId}/jwt-secret on %s', (engine) => {
  let bridge: TestBridge;
  let admin: User;
  let memberUser: User;
  let stranger: User;
  const realNow = () => new Date();

  beforeAll(async () => {
    bridge = await startBridge(engine);
    admin = await bridge.newUser();
    memberUser = await bridge.newUser();
    stranger = await bridge.newUser();
  });
  afterAll(() => bridge.stop());
  // Tests that move the bridge's clock put it back.
  afterEach(() => {
    bridge.deps.now = realNow;
  });

  async function freshOrg() {
    const org = await createOrg(bridge, admin.key);
    await bridge.request('POST', `/api/public/organizations/${org.id}/members`, {
      key: admin.key,
      body: { email: memberUser.email, role: 'MEMBER' },
    });
    return org;
  }

  const rotate = (orgId: string, key = admin.key) =>
    bridge.request('POST', `/api/public/organizations/${orgId}/jwt-secret`, { key });

  /** An SSO exchange of a token signed with `secret`, issued at the bridge's `now`. */
  async function exchange(orgId: string, secret: string, at = new Date()) {
    const iat = Math.floor(at.getTime() / 1000);
    const jwt = await signHs256(claimsFor(orgId, { iat, exp: iat + 600 }), secret);
    return bridge.request('POST', '/api/sso/jwt', { body: { jwt } });
  }

  const readOrg = async (orgId: string) =>
    (
      await bridge.request('GET', `/api/public/organizations/${orgId}?include=jwtSecret`, {
        key: admin.key,
      })
    ).body.data;

  it('answers the organization with a new jwtSecret and when the old one stops', async () => {
    const org = await freshOrg();
    const before = Date.now();
    const res = await rotate(org.id);
    expect(res.status).toBe(200);
    const rotated = dataOf(OrganizationWithSecret).parse(res.body).data;
    expect(rotated.jwtSecret).toMatch(JWT_SECRET);
    expect(rotated.jwtSecret).not.toBe(org.jwtSecret);
    const until = Date.parse(rotated.previousJwtSecretExpiresAt ?? '');
    expect(until).toBeGreaterThanOrEqual(before + DAY_MS);
    expect(until).toBeLessThanOrEqual(Date.now() + DAY_MS);
    expect(Date.parse(rotated.updatedAt)).toBeGreaterThanOrEqual(Date.parse(org.updatedAt));
    const { jwtSecret: _old, previousJwtSecretExpiresAt: _none, updatedAt: _u, ...same } = org;
    expect(rotated).toMatchObject(same);
    const read = await readOrg(org.id);
    expect(read.jwtSecret).toBe(rotated.jwtSecret);
    expect(read.previousJwtSecretExpiresAt).toBe(rotated.previousJwtSecretExpiresAt);
  });

  it('verifies tokens of the new and the previous secret in the grace period, no others', async () => {
    const org = await freshOrg();
    const { jwtSecret } = (await rotate(org.id)).body.data;
    expect((await exchange(org.id, jwtSecret)).status).toBe(200);
    expect((await exchange(org.id, org.jwtSecret)).status).toBe(200);
    const other = await exchange(org.id, 'x'.repeat(43));
    expect(other.status).toBe(401);
    expect(other.body.error).toEqual({
      title: 'Unauthorized',
      detail: SSO_DETAIL,
      code: 'sso_token_invalid',
    });
  });

  it('refuses the previous secret from the end of its grace period, keeping the new one', async () => {
    const org = await freshOrg();
    const { jwtSecret, previousJwtSecretExpiresAt } = (await rotate(org.id)).body.data;
    const end = Date.parse(previousJwtSecretExpiresAt);
    bridge.deps.now = () => new Date(end - 1000);
    expect((await exchange(org.id, org.jwtSecret, new Date(end - 1000))).status).toBe(200);
    bridge.deps.now = () => new Date(end);
    const late = await exchange(org.id, org.jwtSecret, new Date(end));
    expect(late.status).toBe(401);
    expect(late.body.error).toEqual({
      title: 'Unauthorized',
      detail: SSO_DETAIL,
      code: 'sso_token_invalid',
    });
    expect((await exchange(org.id, jwtSecret, new Date(end))).status).toBe(200);
  });

  it('shows previousJwtSecretExpiresAt as null once the grace period is over, on get and list', async () => {
    const org = await freshOrg();
    const { previousJwtSecretExpiresAt } = (await rotate(org.id)).body.data;
    const list = () =>
      bridge.request('GET', '/api/public/organizations?limit=100', { key: admin.key });
    const inList = async () =>
      (await list()).body.data.find((o: { id: string }) => o.id === org.id);
    expect((await inList()).previousJwtSecretExpiresAt).toBe(previousJwtSecretExpiresAt);
    bridge.deps.now = () => new Date(Date.parse(previousJwtSecretExpiresAt));
    expect((await readOrg(org.id)).previousJwtSecretExpiresAt).toBeNull();
    // The list page cached a moment ago must not outlive the grace period either.
    expect((await inList()).previousJwtSecretExpiresAt).toBeNull();
  });

  it('drops the oldest secret on a second rotation inside the grace period', async () => {
    const org = await freshOrg();
    const second = (await rotate(org.id)).body.data;
    const third = (await rotate(org.id)).body.data;
    expect(third.jwtSecret).not.toBe(second.jwtSecret);
    expect(Date.parse(third.previousJwtSecretExpiresAt)).toBeGreaterThanOrEqual(
      Date.parse(second.previousJwtSecretExpiresAt),
    );
    expect((await exchange(org.id, org.jwtSecret)).status).toBe(401);
    expect((await exchange(org.id, second.jwtSecret)).status).toBe(200);
    expect((await exchange(org.id, third.jwtSecret)).status).toBe(200);
  });

  it('loses no secret when rotations race: the last one answered and the one before it verify', async () => {
    const org = await freshOrg();
    const answers = await Promise.all(Array.from({ length: 5 }, () => rotate(org.id)));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const secrets = answers.map((r) => r.body.data.jwtSecret as string);
    const current = (await readOrg(org.id)).jwtSecret;
    expect(secrets).toContain(current);
    const verifying: string[] = [];
    for (const secret of [org.jwtSecret, ...secrets]) {
      if ((await exchange(org.id, secret)).status === 200) verifying.push(secret);
    }
    // The current secret and the one it replaced, which an answer handed out: never lost.
    expect(verifying).toHaveLength(2);
    expect(verifying.every((s) => secrets.includes(s))).toBe(true);
  });

  it('seals the previous secret at rest, bound to its organization and field', async () => {
    const org = await freshOrg();
    await rotate(org.id);
    const row = await bridge.deps.store.db
      .selectFrom('organizations')
      .select(['previousJwtSecretSealed', 'jwtSecretSealed'])
      .where('id', '=', org.id)
      .executeTakeFirstOrThrow();
    const sealed = row.previousJwtSecretSealed ?? '';
    expect(sealed).toMatch(/^v1\.[0-9a-f]{8}\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain(org.jwtSecret);
    const box = bridge.deps.secretBox;
    expect(box.open(sealed, org.id, 'previousJwtSecret')).toBe(org.jwtSecret);
    expect(() => box.open(sealed, org.id, 'jwtSecret')).toThrow();
    expect(() => box.open(sealed, UNKNOWN_ORG, 'previousJwtSecret')).toThrow();
  });

  it('never shows the previous secret, even to an ADMIN asking for the jwtSecret', async () => {
    const org = await freshOrg();
    const rotated = await rotate(org.id);
    const read = await bridge.request(
      'GET',
      `/api/public/organizations/${org.id}?include=jwtSecret`,
      { key: admin.key },
    );
    for (const res of [rotated, read]) expect(res.text).not.toContain(org.jwtSecret);
  });

  describe('ending the sessions with the rotation (endSessions)', () => {
    const rotateWith = (orgId: string, body: unknown, headers: Record<string, string> = {}) =>
      bridge.request('POST', `/api/public/organizations/${orgId}/jwt-secret`, {
        key: admin.key,
        body,
        headers,
      });
    const sessionStatus = async (token: string) =>
      (await bridge.request('GET', '/api/sso/session', { key: token })).status;
    const renewStatus = async (token: string) =>
      (await bridge.request('POST', '/api/sso/session/refresh', { key: token })).status;
    // Sessions are dated to the second: one signed in during the rotation's second ends too.
    const nextSecond = () => new Promise((r) => setTimeout(r, 1005 - (Date.now() % 1000)));

    it('ends every session signed in before it, kit and full embed, renewals included', async () => {
      const org = await createOrg(bridge, admin.key, {
        fullEmbedEnabled: true,
        embedAllowedOrigins: ['https://host.example.com'],
      });
      const kit = await kitSignIn(bridge, org, { role: 'ADMIN' });
      const embed = await embedSignIn(bridge, org, 'https://host.example.com');
      const renewed = (
        await bridge.request('POST', '/api/sso/session/refresh', { key: kit.sessionToken })
      ).body.data.sessionToken as string;
      const other = await createOrg(bridge, admin.key);
      const elsewhere = await kitSignIn(bridge, other);

      const res = await rotateWith(org.id, { endSessions: true });
      expect(res.status).toBe(200);
      for (const token of [kit.sessionToken, renewed, embed.sessionToken]) {
        expect(await sessionStatus(token)).toBe(401);
        expect(await renewStatus(token)).toBe(401);
        const api = await bridge.request('GET', `/api/public/organizations/${org.id}`, {
          key: token,
        });
        expect(api.status).toBe(401);
        expect(api.body.error.code).toBe('invalid_credentials');
      }
      // Another organization's sessions are not touched.
      expect(await sessionStatus(elsewhere.sessionToken)).toBe(200);

      // A session signed in after the rotation lives, with the new secret or the previous one.
      await nextSecond();
      const fresh = await exchange(org.id, res.body.data.jwtSecret);
      expect(fresh.status).toBe(200);
      expect(await sessionStatus(fresh.body.data.sessionToken)).toBe(200);
      expect(await renewStatus(fresh.body.data.sessionToken)).toBe(200);
    });

    it.each([
      ['no body', undefined],
      ['an empty body', {}],
      ['endSessions: false', { endSessions: false }],
    ])('leaves sessions alive with %s (as before)', async (_, body) => {
      const org = await freshOrg();
      const kit = await kitSignIn(bridge, org);
      const res = await rotateWith(org.id, body);
      expect(res.status).toBe(200);
      expect(res.body.data.jwtSecret).toMatch(JWT_SECRET);
      expect(await sessionStatus(kit.sessionToken)).toBe(200);
      expect(await renewStatus(kit.sessionToken)).toBe(200);
    });

    it('moves the moment on with a second rotation that ends sessions', async () => {
      const org = await freshOrg();
      expect((await rotateWith(org.id, { endSessions: true })).status).toBe(200);
      await nextSecond();
      const between = await kitSignIn(bridge, org);
      expect(await sessionStatus(between.sessionToken)).toBe(200);
      expect((await rotateWith(org.id, { endSessions: true })).status).toBe(200);
      expect(await sessionStatus(between.sessionToken)).toBe(401);
    });

    it.each([
      ['endSessions that is not a boolean', { endSessions: 'yes' }, 'endSessions', 'invalid_type'],
      ['an unknown field', { endSession: true }, 'endSession', 'unknown_field'],
    ])('answers 400 for %s, rotating nothing and ending nothing', async (_, body, field, code) => {
      const org = await freshOrg();
      const kit = await kitSignIn(bridge, org);
      const res = await rotateWith(org.id, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        title: 'ValidationError',
        code: 'validation_failed',
        fieldErrors: { [field]: expect.any(String) },
        fieldCodes: { [field]: code },
      });
      expect((await readOrg(org.id)).jwtSecret).toBe(org.jwtSecret);
      expect(await sessionStatus(kit.sessionToken)).toBe(200);
    });

    it('answers 415 for a body that is not JSON, rotating nothing', async () => {
      const org = await freshOrg();
      const res = await bridge.request('POST', `/api/public/organizations/${org.id}/jwt-secret`, {
        key: admin.key,
        rawBody: 'endSessions=true',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(res.status).toBe(415);
      expect(res.body.error).toMatchObject({
        title: 'UnsupportedMediaType',
        code: 'unsupported_media_type',
      });
      expect((await readOrg(org.id)).jwtSecret).toBe(org.jwtSecret);
    });
  });

  describe('refusals', () => {
    const expectUnchanged = async (org: { id: string; jwtSecret: string }) => {
      const read = await readOrg(org.id);
      expect(read.jwtSecret).toBe(org.jwtSecret);
      expect(read.previousJwtSecretExpiresAt).toBeNull();
    };

    it('answers 403 to an ADMIN session: only an API key rotates', async () => {
      const org = await freshOrg();
      const session = await kitSignIn(bridge, org, { role: 'ADMIN' });
      const res = await rotate(org.id, session.sessionToken);
      expect(res.status).toBe(403);
      expect(res.body.error).toEqual({
        title: 'Forbidden',
        detail: 'This needs an API key, not a session token',
        code: 'api_key_required',
      });
      await expectUnchanged(org);
    });

    it('answers 403 to a MEMBER key, and to a MEMBER session for its credential first', async () => {
      const org = await freshOrg();
      const session = await kitSignIn(bridge, org, { email: memberUser.email });
      const byKey = await rotate(org.id, memberUser.key);
      expect(byKey.status).toBe(403);
      expect(byKey.body.error).toEqual({
        title: 'Forbidden',
        detail: 'Only an ADMIN of the organization can do this',
        code: 'admin_required',
      });
      // The route's credential is checked before the organization is read.
      const bySession = await rotate(org.id, session.sessionToken);
      expect(bySession.status).toBe(403);
      expect(bySession.body.error.code).toBe('api_key_required');
      await expectUnchanged(org);
    });

    it('answers 404 to a non-member, the same body as an unknown id', async () => {
      const org = await freshOrg();
      const unknown = await rotate(UNKNOWN_ORG, stranger.key);
      const res = await rotate(org.id, stranger.key);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(unknown.body);
      expect(res.body.error).toEqual({
        title: 'NotFound',
        detail: 'Organization not found',
        code: 'organization_not_found',
      });
      await expectUnchanged(org);
    });

    it('answers 401 without credentials', async () => {
      const res = await bridge.request(
        'POST',
        `/api/public/organizations/${UNKNOWN_ORG}/jwt-secret`,
      );
      expect(res.status).toBe(401);
      expect(res.body.error).toEqual({
        title: 'Unauthorized',
        detail: 'Missing, invalid, revoked or expired credentials',
        code: 'invalid_credentials',
      });
    });
  });
});

describe('jwtSecret rotation without a grace period', () => {
  let bridge: TestBridge;

  beforeAll(async () => {
    bridge = await startBridge('sqlite', { BRIDGE_JWT_SECRET_GRACE_HOURS: '0' });
  });
  afterAll(() => bridge.stop());

  it('stops the previous secret at once and keeps none', async () => {
    const admin = await bridge.newUser();
    const org = await createOrg(bridge, admin.key);
    const res = await bridge.request('POST', `/api/public/organizations/${org.id}/jwt-secret`, {
      key: admin.key,
    });
    expect(res.status).toBe(200);
    expect(res.body.data.previousJwtSecretExpiresAt).toBeNull();
    const jwt = await signHs256(claimsFor(org.id), org.jwtSecret);
    expect((await bridge.request('POST', '/api/sso/jwt', { body: { jwt } })).status).toBe(401);
    const row = await bridge.deps.store.db
      .selectFrom('organizations')
      .select('previousJwtSecretSealed')
      .where('id', '=', org.id)
      .executeTakeFirstOrThrow();
    expect(row.previousJwtSecretSealed).toBeNull();
  });
});
