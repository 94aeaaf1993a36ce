import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type TestBridge } from '../../../test/support/bridge';
import { createOrg } from '../sso/support';

const HOST = 'https://host.example.com';
const EVIL = 'https://evil.example';

// Path rules compare paths exactly (CORS and origin enforcement, the exact fast routes, probes
// off the access log), so the router matches exactly too: one spelling per path.
describe('paths match one spelling, as every path rule compares them', () => {
  let bridge: TestBridge;
  let owner: { key: string };
  let org: { id: string; slug: string; name: string };

  beforeAll(async () => {
    bridge = await startBridge('sqlite');
    owner = await bridge.newUser();
    org = await createOrg(bridge, owner.key, {
      name: 'Paths',
      fullEmbedEnabled: true,
      embedAllowedOrigins: [HOST],
    });
  });
  afterAll(() => bridge.stop());

  const expectRouteNotFound = (res: Awaited<ReturnType<TestBridge['request']>>) => {
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ title: 'NotFound', code: 'route_not_found' });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  };

  it.each([
    ['GET', (id: string) => `/API/public/organizations/${id}`],
    ['GET', (id: string) => `/api/Public/organizations/${id}`],
    ['PATCH', (id: string) => `/API/public/organizations/${id}`],
    ['DELETE', (id: string) => `/Api/public/organizations/${id}`],
  ])(
    'does not carry out %s %s from a disallowed Origin: 404, nothing changed',
    async (method, path) => {
      const res = await bridge.request(method, path(org.id), {
        key: owner.key,
        headers: { origin: EVIL },
        body: method === 'PATCH' ? { name: 'Taken over' } : undefined,
      });
      expectRouteNotFound(res);
      const now = await bridge.request('GET', `/api/public/organizations/${org.id}`, {
        key: owner.key,
      });
      expect(now.status).toBe(200);
      expect(now.body.data.name).toBe('Paths');
    },
  );

  it('does not create from /API/ with a disallowed Origin (404), as /api/ refuses it (403)', async () => {
    const before = await bridge.request('GET', '/api/public/organizations', { key: owner.key });
    const upper = await bridge.request('POST', '/API/public/organizations', {
      key: owner.key,
      headers: { origin: EVIL },
      body: { name: 'Evil' },
    });
    expectRouteNotFound(upper);
    const lower = await bridge.request('POST', '/api/public/organizations', {
      key: owner.key,
      headers: { origin: EVIL },
      body: { name: 'Evil' },
    });
    expect(lower.status).toBe(403);
    expect(lower.body.error).toMatchObject({ title: 'Forbidden', code: 'origin_not_allowed' });
    const after = await bridge.request('GET', '/api/public/organizations', { key: owner.key });
    expect(after.body.data).toHaveLength(before.body.data.length);
  });

  it('answers a preflight to /API/ with 404 and no CORS headers', async () => {
    const res = await bridge.request('OPTIONS', `/API/public/organizations/${org.id}`, {
      headers: { origin: HOST, 'access-control-request-method': 'PATCH' },
    });
    expectRouteNotFound(res);
  });

  it.each([
    ['GET', '/api/public/organizations/'],
    ['POST', '/api/public/organizations/'],
    ['GET', '/api/public/openapi.json/'],
    ['GET', '/healthz/'],
    ['GET', '/HEALTHZ'],
    ['GET', '/Docs'],
    ['GET', '/docs/'],
    ['POST', '/api/sso/JWT'],
    ['POST', '/embed/session/'],
  ])('answers %s %s (another spelling) with 404 route_not_found', async (method, path) => {
    const res = await bridge.request(method, path, {
      key: owner.key,
      body: method === 'POST' ? { name: 'Trailing' } : undefined,
    });
    expectRouteNotFound(res);
  });

  it('answers a trailing slash after an id with 404, and the id without it (control)', async () => {
    const slash = await bridge.request('GET', `/api/public/organizations/${org.id}/`, {
      key: owner.key,
    });
    expectRouteNotFound(slash);
    const exact = await bridge.request('GET', `/api/public/organizations/${org.id}`, {
      key: owner.key,
    });
    expect(exact.status).toBe(200);
  });

  it('answers the embed page only at its own spelling', async () => {
    expect((await bridge.request('GET', `/embed/orgs/${org.slug}`)).status).toBe(200);
    const upper = await bridge.request('GET', `/EMBED/orgs/${org.slug}`);
    expect(upper.status).toBe(404);
    expect(upper.headers.get('content-security-policy')).toBeNull();
  });
});

describe('X-Content-Type-Options: nosniff on every response', () => {
  let bridge: TestBridge;
  let owner: { key: string };
  let org: { id: string; slug: string };

  beforeAll(async () => {
    bridge = await startBridge('sqlite');
    owner = await bridge.newUser();
    org = await createOrg(bridge, owner.key, {
      fullEmbedEnabled: true,
      embedAllowedOrigins: [HOST],
    });
  });
  afterAll(() => bridge.stop());

  const cases: [string, string, string, number, Record<string, unknown>?][] = [
    ['JSON success (an exact route)', 'GET', '/api/public/organizations', 200],
    ['JSON success (a routed path)', 'GET', '/api/public/organizations/{org}', 200],
    ['JSON error: unknown route', 'GET', '/nowhere', 404],
    ['JSON error: no credentials', 'GET', '/api/public/organizations/{org}/members', 401],
    ['JSON error: bad body', 'POST', '/api/public/organizations', 400, { name: 7 }],
    ['JSON error: the SSO exchange', 'POST', '/api/sso/jwt', 401, { jwt: 'a.b.c' }],
    ['HTML: the reference page', 'GET', '/docs', 200],
    ['HTML: the embed page', 'GET', '/embed/orgs/{slug}', 200],
    ['HTML error: an unknown embed page', 'GET', '/embed/orgs/nope', 404],
    ['a probe', 'GET', '/healthz', 200],
    ['the OpenAPI document', 'GET', '/api/public/openapi.json', 200],
  ];

  it.each(cases)('%s: %s %s', async (name, method, path, status, body) => {
    const authed = !name.includes('no credentials') && !name.includes('SSO');
    const res = await bridge.request(
      method,
      path.replace('{org}', org.id).replace('{slug}', org.slug),
      { key: authed ? owner.key : undefined, body },
    );
    expect(res.status).toBe(status);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('a preflight answered 204', async () => {
    const res = await bridge.request('OPTIONS', `/api/public/organizations/${org.id}`, {
      headers: { origin: HOST, 'access-control-request-method': 'PATCH' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('a malformed JSON body (415 without a JSON type)', async () => {
    const res = await bridge.request('POST', '/api/public/organizations', {
      key: owner.key,
      rawBody: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(415);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
