import { ErrorBody, type ErrorCode, type RouteDef, routes, Timestamp } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ENGINES,
  startBridge,
  type TestBridge,
  type TestResponse,
} from '../../../test/support/bridge';
import { createApiKeyForEmail } from '../../src/domain/api-key-admin';
import { hashApiKey } from '../../src/domain/api-keys';
import { listApiKeys, revokeApiKey } from '../../src/store/api-keys';
import { createOrg, kitSignIn } from '../sso/support';

const DETAIL = 'Missing, invalid, revoked or expired credentials';
const UNKNOWN_KEY = 'bk_key_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

/** The one answer to every missing, malformed, unknown, revoked or expired credential. */
function expectRefused(res: TestResponse) {
  expect(res.status).toBe(401);
  expect(ErrorBody.parse(res.body).error).toEqual({
    title: 'Unauthorized',
    code: 'invalid_credentials',
    detail: DETAIL,
  });
  expect(res.headers.get('www-authenticate')).toBe('Bearer');
}

describe.each(ENGINES)('authentication on %s', (engine) => {
  let bridge: TestBridge;
  let user: { key: string; userId: string; email: string };
  let orgId: string;
  let memberId: string;

  beforeAll(async () => {
    bridge = await startBridge(engine);
    user = await bridge.newUser();
    const org = await bridge.request('POST', '/api/public/organizations', {
      key: user.key,
      body: { name: 'Auth Org' },
    });
    orgId = org.body.data.id;
    const members = await bridge.request('GET', `/api/public/organizations/${orgId}/members`, {
      key: user.key,
    });
    memberId = members.body.data[0].id;
  });
  afterAll(() => bridge.stop());

  it('accepts a valid key', async () => {
    const res = await bridge.request('GET', '/api/public/organizations', { key: user.key });
    expect(res.status).toBe(200);
  });

  it('accepts the scheme name in any case', async () => {
    const res = await bridge.request('GET', '/api/public/organizations', {
      headers: { authorization: `bearer ${user.key}` },
    });
    expect(res.status).toBe(200);
  });

  it('answers 401 without an Authorization header', async () => {
    const res = await bridge.request('GET', '/api/public/organizations');
    expectRefused(res);
  });

  it('answers 401 to Basic credentials', async () => {
    const res = await bridge.request('GET', '/api/public/organizations', {
      headers: { authorization: `Basic ${Buffer.from('user:pass').toString('base64')}` },
    });
    expectRefused(res);
  });

  it('answers 401 to Basic credentials that carry a valid key', async () => {
    const res = await bridge.request('GET', '/api/public/organizations', {
      headers: { authorization: `Basic ${user.key}` },
    });
    expectRefused(res);
  });

  it('answers 401 to "Bearer" with nothing after it', async () => {
    const res = await bridge.request('GET', '/api/public/organizations', {
      headers: { authorization: 'Bearer' },
    });
    expectRefused(res);
  });

  it('answers 401 to "Bearer " with only spaces after it', async () => {
    const res = await bridge.request('GET', '/api/public/organizations', {
      headers: { authorization: 'Bearer    ' },
    });
    expectRefused(res);
  });

  it('answers 401 to an unknown well-formed key', async () => {
    const res = await bridge.request('GET', '/api/public/organizations', { key: UNKNOWN_KEY });
    expectRefused(res);
  });

  it('answers 401 to a malformed key', async () => {
    const res = await bridge.request('GET', '/api/public/organizations', {
      key: 'bk_key_tooShort',
    });
    expectRefused(res);
  });

  it('answers 401 to a valid key with one character changed', async () => {
    const last = user.key.at(-1) === 'a' ? 'b' : 'a';
    const res = await bridge.request('GET', '/api/public/organizations', {
      key: `${user.key.slice(0, -1)}${last}`,
    });
    expectRefused(res);
  });

  it('answers 401 to the stored SHA-256 digest sent as the key', async () => {
    const res = await bridge.request('GET', '/api/public/organizations', {
      key: hashApiKey(user.key),
    });
    expectRefused(res);
  });

  it('answers 401 to a revoked key', async () => {
    const created = await createApiKeyForEmail(
      bridge.deps.store.db,
      { email: user.email },
      new Date(),
    );
    const before = await bridge.request('GET', '/api/public/organizations', { key: created.key });
    expect(before.status).toBe(200);
    expect(await revokeApiKey(bridge.deps.store.db, created.id, new Date().toISOString())).toBe(
      true,
    );
    const res = await bridge.request('GET', '/api/public/organizations', { key: created.key });
    expectRefused(res);
  });

  it("keeps the user's other keys working after one is revoked", async () => {
    const doomed = await createApiKeyForEmail(
      bridge.deps.store.db,
      { email: user.email },
      new Date(),
    );
    await revokeApiKey(bridge.deps.store.db, doomed.id, new Date().toISOString());
    const res = await bridge.request('GET', '/api/public/organizations', { key: user.key });
    expect(res.status).toBe(200);
  });

  it('answers 401 to an expired key', async () => {
    const created = await createApiKeyForEmail(
      bridge.deps.store.db,
      { email: user.email, expiresAt: new Date(Date.now() - 1000) },
      new Date(Date.now() - 60_000),
    );
    const res = await bridge.request('GET', '/api/public/organizations', { key: created.key });
    expectRefused(res);
  });

  it('accepts a key whose expiry is in the future', async () => {
    const created = await createApiKeyForEmail(
      bridge.deps.store.db,
      { email: user.email, expiresAt: new Date(Date.now() + 3_600_000) },
      new Date(),
    );
    const res = await bridge.request('GET', '/api/public/organizations', { key: created.key });
    expect(res.status).toBe(200);
  });

  it('sets lastUsedAt after a key is used', async () => {
    const created = await createApiKeyForEmail(
      bridge.deps.store.db,
      { email: user.email },
      new Date(),
    );
    const row = async () =>
      (await listApiKeys(bridge.deps.store.db, user.userId)).find((k) => k.id === created.id);
    expect((await row())?.lastUsedAt).toBeNull();
    const before = Date.now();
    await bridge.request('GET', '/api/public/organizations', { key: created.key });
    const lastUsedAt = (await row())?.lastUsedAt;
    expect(Timestamp.parse(lastUsedAt)).toBe(lastUsedAt);
    expect(Date.parse(lastUsedAt!)).toBeGreaterThanOrEqual(before - 5);
    expect(Date.parse(lastUsedAt!)).toBeLessThanOrEqual(Date.now());
  });

  it('does not set lastUsedAt when a revoked key is tried', async () => {
    const created = await createApiKeyForEmail(
      bridge.deps.store.db,
      { email: user.email },
      new Date(),
    );
    await revokeApiKey(bridge.deps.store.db, created.id, new Date().toISOString());
    await bridge.request('GET', '/api/public/organizations', { key: created.key });
    const rows = await listApiKeys(bridge.deps.store.db, user.userId);
    expect(rows.find((k) => k.id === created.id)?.lastUsedAt).toBeNull();
  });

  it('stores only the digest and the last 4 characters of a key', async () => {
    const created = await createApiKeyForEmail(
      bridge.deps.store.db,
      { email: user.email },
      new Date(),
    );
    const row = await bridge.deps.store.db
      .selectFrom('apiKeys')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row.keyHash).toBe(hashApiKey(created.key));
    expect(row.hint).toBe(created.key.slice(-4));
    expect(JSON.stringify(row)).not.toContain(created.key.slice(7));
  });

  it('answers 401 before looking at the body', async () => {
    const res = await bridge.request('POST', '/api/public/organizations', {
      rawBody: 'not json',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  describe('every endpoint needs a key', () => {
    it.each([
      ['GET', '/api/public/organizations'],
      ['POST', '/api/public/organizations'],
      ['GET', '/api/public/organizations/{orgId}'],
      ['GET', '/api/public/organizations/{orgId}/members'],
      ['POST', '/api/public/organizations/{orgId}/members'],
      ['GET', '/api/public/organizations/{orgId}/members/{id}'],
    ])('%s %s answers 401 without a key', async (method, path) => {
      const url = path.replace('{orgId}', orgId).replace('{id}', memberId);
      const res = await bridge.request(method, url, {
        body: method === 'POST' ? {} : undefined,
      });
      expect(res.status).toBe(401);
      expect(ErrorBody.parse(res.body).error).toEqual({
        title: 'Unauthorized',
        code: 'invalid_credentials',
        detail: DETAIL,
      });
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    });
  });
});

// The contract's `credential` (RouteDef) is enforced where routes are mounted, for every route
// that names one: a route added with a credential and no fixture here fails the first test.
describe.each(ENGINES)('the one credential a route takes, on %s', (engine) => {
  let bridge: TestBridge;
  let apiKey: string;
  let sessionToken: string;
  let orgId: string;
  /** Webhook endpoints: one the routes read and change, one the delete takes. */
  const endpoints = { kept: '', deleted: '' };
  /** An organization of its own for the delete. */
  let doomedOrgId: string;
  const HOOK = { url: 'https://hooks.example.com/auth', eventTypes: ['member.added'] };

  // A request each credential-bound route accepts from its own credential; `id` fills `{id}`,
  // `org` another `{orgId}`.
  const FIXTURES: Record<
    string,
    { body?: unknown; accepted: number; id?: () => string; org?: () => string }
  > = {
    createOrganization: { body: { name: 'Made by the right credential' }, accepted: 201 },
    deleteOrganization: { accepted: 200, org: () => doomedOrgId },
    rotateJwtSecret: { accepted: 200 },
    listWebhookEndpoints: { accepted: 200 },
    createWebhookEndpoint: { body: HOOK, accepted: 201 },
    getWebhookEndpoint: { accepted: 200, id: () => endpoints.kept },
    updateWebhookEndpoint: { body: { description: 'x' }, accepted: 200, id: () => endpoints.kept },
    deleteWebhookEndpoint: { accepted: 200, id: () => endpoints.deleted },
    rotateWebhookSecret: { accepted: 200, id: () => endpoints.kept },
    testWebhookEndpoint: { accepted: 202, id: () => endpoints.kept },
    listWebhookDeliveries: { accepted: 200, id: () => endpoints.kept },
    ssoSession: { accepted: 200 },
    ssoRefresh: { accepted: 200 },
    ssoLogout: { accepted: 204 },
  };
  const bound = (Object.entries(routes) as [string, RouteDef][]).filter(([, r]) => r.credential);

  beforeAll(async () => {
    bridge = await startBridge(engine);
    apiKey = (await bridge.newUser()).key;
    const org = await createOrg(bridge, apiKey);
    orgId = org.id;
    sessionToken = (await kitSignIn(bridge, org, { role: 'ADMIN' })).sessionToken;
    doomedOrgId = (await createOrg(bridge, apiKey)).id;
    for (const which of ['kept', 'deleted'] as const) {
      const hook = await bridge.request(
        'POST',
        `/api/public/organizations/${orgId}/webhook-endpoints`,
        { key: apiKey, body: HOOK },
      );
      endpoints[which] = hook.body.data.id;
    }
  });
  afterAll(() => bridge.stop());

  const send = (route: RouteDef, token: string, body?: unknown, id = '', org = orgId) =>
    bridge.request(
      route.method.toUpperCase(),
      route.path.replace('{orgId}', org).replace('{id}', id),
      { headers: { authorization: `Bearer ${token}` }, body },
    );
  const sendFixture = (id: string, route: RouteDef, token: string) => {
    const f = FIXTURES[id]!;
    return send(route, token, f.body, f.id?.(), f.org?.());
  };

  /** The exact 403 refusing `id`'s route to the other credential. */
  const expectForbidden = (
    res: { status: number; body: { error?: unknown } },
    id: string,
    code: ErrorCode,
    detail: string,
  ) => {
    expect(res.status, id).toBe(403);
    expect(res.body.error, id).toEqual({ title: 'Forbidden', code, detail });
  };

  it('has a fixture for every route that names a credential', () => {
    expect(bound.map(([id]) => id).sort()).toEqual(Object.keys(FIXTURES).sort());
  });

  it('refuses a session token on every API-key route with 403 api_key_required', async () => {
    for (const [id, route] of bound.filter(([, r]) => r.credential === 'apiKey')) {
      const res = await sendFixture(id, route, sessionToken);
      expectForbidden(res, id, 'api_key_required', 'This needs an API key, not a session token');
    }
  });

  it('refuses it before reading the body: a bad body gets the same 403, not a 400', async () => {
    const res = await send(routes.createOrganization, sessionToken, { name: '' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('api_key_required');
  });

  it('refuses an API key on every session route: 403 session_required, 401 on logout', async () => {
    for (const [id, route] of bound.filter(([, r]) => r.credential === 'session')) {
      const res = await send(route, apiKey, FIXTURES[id]!.body);
      if (id === 'ssoLogout') {
        // Logout's own check takes any token the bridge signed, and nothing else.
        expect(res.status, id).toBe(401);
        expect(res.body.error, id).toMatchObject({
          title: 'Unauthorized',
          code: 'invalid_credentials',
        });
      } else {
        expectForbidden(res, id, 'session_required', 'This needs a session token, not an API key');
      }
    }
  });

  it('accepts each route’s own credential', async () => {
    // In table order: logout, which ends the session, comes after the other session routes.
    for (const [id, route] of bound) {
      const token = route.credential === 'apiKey' ? apiKey : sessionToken;
      const res = await sendFixture(id, route, token);
      expect(res.status, `${id}: ${res.text}`).toBe(FIXTURES[id]!.accepted);
    }
  });
});
