import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';
import { claimsFor, createOrg, nowSeconds, signHs256 } from './support';

const APP = 'https://app.example.com';
const TENANT = 'https://acme.tenants.example.com';
const OTHER_ORGS_SITE = 'https://b.example.net';
const EVIL = 'https://evil.example';

const varies = (headers: Headers) =>
  (headers.get('vary') ?? '')
    .split(',')
    .map((v) => v.trim().toLowerCase())
    .includes('origin');

describe.each(ENGINES)('SSO origins and CORS on %s', (engine) => {
  let bridge: TestBridge;
  let orgA: { id: string; jwtSecret: string };
  let sessionA: string;

  beforeAll(async () => {
    bridge = await startBridge(engine);
    const owner = await bridge.newUser();
    orgA = await createOrg(bridge, owner.key, {
      embedAllowedOrigins: [APP, 'https://*.tenants.example.com'],
    });
    await createOrg(bridge, owner.key, { embedAllowedOrigins: [OTHER_ORGS_SITE] });
    const jwt = await signHs256(claimsFor(orgA.id), orgA.jwtSecret);
    const res = await bridge.request('POST', '/api/sso/jwt', { body: { jwt } });
    sessionA = res.body.data.sessionToken;
  });
  afterAll(() => bridge.stop());

  const exchangeFrom = async (origin: string | undefined) => {
    const jwt = await signHs256(claimsFor(orgA.id), orgA.jwtSecret);
    return bridge.request('POST', '/api/sso/jwt', {
      body: { jwt },
      headers: origin ? { origin } : {},
    });
  };

  const preflight = (path: string, origin: string, method = 'POST') =>
    bridge.request('OPTIONS', path, {
      headers: {
        origin,
        'access-control-request-method': method,
        'access-control-request-headers': 'authorization, content-type',
      },
    });

  describe('POST /api/sso/jwt', () => {
    it('answers an allowed origin with 200 and its CORS headers, without credentials', async () => {
      const res = await exchangeFrom(APP);
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe(APP);
      expect(varies(res.headers)).toBe(true);
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    });

    it('answers a subdomain under a wildcard entry with 200 and its origin', async () => {
      const res = await exchangeFrom(TENANT);
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe(TENANT);
    });

    it('answers a disallowed origin with 403 Forbidden and no CORS headers', async () => {
      const res = await exchangeFrom(EVIL);
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ title: 'Forbidden', code: 'origin_not_allowed' });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(varies(res.headers)).toBe(true);
    });

    it('answers an origin only another organization allows with 403 Forbidden', async () => {
      const res = await exchangeFrom(OTHER_ORGS_SITE);
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ title: 'Forbidden', code: 'origin_not_allowed' });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('answers the apex of a wildcard entry with 403 Forbidden', async () => {
      const res = await exchangeFrom('https://tenants.example.com');
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ title: 'Forbidden', code: 'origin_not_allowed' });
    });

    it('answers http:// of an allowed https origin with 403 Forbidden', async () => {
      const res = await exchangeFrom('http://app.example.com');
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ title: 'Forbidden', code: 'origin_not_allowed' });
    });

    it('answers Origin: null with 403 Forbidden', async () => {
      const res = await exchangeFrom('null');
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ title: 'Forbidden', code: 'origin_not_allowed' });
    });

    it('lets an allowed origin read a refusal: 401 for an expired token carries its CORS headers', async () => {
      const expired = claimsFor(orgA.id, { iat: nowSeconds() - 7200, exp: nowSeconds() - 3600 });
      const res = await bridge.request('POST', '/api/sso/jwt', {
        body: { jwt: await signHs256(expired, orgA.jwtSecret) },
        headers: { origin: APP },
      });
      expect(res.status).toBe(401);
      expect(res.body.error).toMatchObject({ title: 'Unauthorized', code: 'sso_token_invalid' });
      expect(res.headers.get('access-control-allow-origin')).toBe(APP);
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    });

    it('gives no CORS headers to a refusal for a disallowed origin or an unknown organization', async () => {
      const forged = await signHs256(claimsFor(orgA.id), 'not-the-secret-0123456789abcdef');
      for (const [jwt, origin] of [
        [forged, EVIL],
        [await signHs256(claimsFor('org_unknown'), orgA.jwtSecret), APP],
        ['not.a.jwt', APP],
      ] as const) {
        const res = await bridge.request('POST', '/api/sso/jwt', {
          body: { jwt },
          headers: { origin },
        });
        expect(res.status).toBe(401);
        expect(res.body.error).toMatchObject({ title: 'Unauthorized', code: 'sso_token_invalid' });
        expect(res.headers.get('access-control-allow-origin')).toBeNull();
      }
    });

    it('answers a server-to-server call without Origin with 200 and no CORS headers', async () => {
      const res = await exchangeFrom(undefined);
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(varies(res.headers)).toBe(true);
    });
  });

  describe('preflight', () => {
    it('answers OPTIONS /api/sso/jwt from an allowed origin with 204', async () => {
      const res = await preflight('/api/sso/jwt', APP);
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(APP);
      expect(res.headers.get('access-control-allow-methods')).toContain('POST');
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain(
        'content-type',
      );
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      expect(varies(res.headers)).toBe(true);
    });

    it('answers OPTIONS /api/sso/jwt from a disallowed origin with 403', async () => {
      const res = await preflight('/api/sso/jwt', EVIL);
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ title: 'Forbidden', code: 'origin_not_allowed' });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    });

    it("answers OPTIONS on an organization's data sources from its origin with 204", async () => {
      const res = await preflight(`/api/public/organizations/${orgA.id}/data-sources`, APP);
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(APP);
      expect(res.headers.get('access-control-allow-methods')).toContain('POST');
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain(
        'authorization',
      );
    });

    it("answers OPTIONS on an organization's data sources from a disallowed origin with 403", async () => {
      const res = await preflight(`/api/public/organizations/${orgA.id}/data-sources`, EVIL);
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ title: 'Forbidden', code: 'origin_not_allowed' });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    });

    it("answers OPTIONS on an organization's path from another organization's origin with 403", async () => {
      const res = await preflight(
        `/api/public/organizations/${orgA.id}/data-sources`,
        OTHER_ORGS_SITE,
      );
      expect(res.status).toBe(403);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    });
  });

  describe('a malformed organization id in the path', () => {
    it('answers a preflight with 403, not 500', async () => {
      const res = await preflight('/api/public/organizations/%E0%A4%A/data-sources', APP);
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ title: 'Forbidden', code: 'origin_not_allowed' });
    });

    it('answers a GET with an Origin with 400 ValidationError, not 500', async () => {
      const res = await bridge.request('GET', '/api/public/organizations/%E0%A4%A', {
        headers: { origin: APP },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ title: 'ValidationError', code: 'malformed_request' });
    });
  });

  describe('requests with a session', () => {
    it('answers a GET from an allowed origin with 200 and CORS headers', async () => {
      const res = await bridge.request('GET', `/api/public/organizations/${orgA.id}/data-sources`, {
        key: sessionA,
        headers: { origin: APP },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe(APP);
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    });

    it('answers a GET from a disallowed origin with 403', async () => {
      const res = await bridge.request('GET', `/api/public/organizations/${orgA.id}/data-sources`, {
        key: sessionA,
        headers: { origin: EVIL },
      });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ title: 'Forbidden', code: 'origin_not_allowed' });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('answers a GET of the organization list from a disallowed origin with 403', async () => {
      const res = await bridge.request('GET', '/api/public/organizations', {
        key: sessionA,
        headers: { origin: EVIL },
      });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ title: 'Forbidden', code: 'origin_not_allowed' });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('answers a GET of the organization list from its origin with 200 and CORS headers', async () => {
      const res = await bridge.request('GET', '/api/public/organizations', {
        key: sessionA,
        headers: { origin: APP },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe(APP);
    });
  });

  describe('Vary: Origin', () => {
    it.each([
      ['GET', '/healthz'],
      ['GET', '/api/public/organizations'],
      ['GET', '/no/such/route'],
      ['GET', '/api/public/openapi.json'],
      ['POST', '/api/sso/jwt'],
    ])('is on %s %s without an Origin', async (method, path) => {
      const res = await bridge.request(method, path, method === 'POST' ? { body: {} } : {});
      expect(varies(res.headers)).toBe(true);
    });

    it('is on the embed page', async () => {
      const res = await bridge.request('GET', '/embed/orgs/no-such-org');
      expect(varies(res.headers)).toBe(true);
    });
  });
});

describe('SSO rate limit seen from an allowed origin', () => {
  let bridge: TestBridge;
  let org: { id: string; jwtSecret: string };

  beforeAll(async () => {
    bridge = await startBridge('sqlite', { BRIDGE_SSO_RATE_LIMIT_PER_MINUTE: '1' });
    const owner = await bridge.newUser();
    org = await createOrg(bridge, owner.key, { embedAllowedOrigins: [APP] });
  });
  afterAll(() => bridge.stop());

  it('answers 429 with Retry-After the page can read', async () => {
    const exchange = async () =>
      bridge.request('POST', '/api/sso/jwt', {
        body: { jwt: await signHs256(claimsFor(org.id), org.jwtSecret) },
        headers: { origin: APP },
      });
    expect((await exchange()).status).toBe(200);
    const limited = await exchange();
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ title: 'TooManyRequests', code: 'rate_limited' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('access-control-allow-origin')).toBe(APP);
    expect(limited.headers.get('access-control-expose-headers')).toContain('Retry-After');
  });
});
