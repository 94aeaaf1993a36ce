import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type TestBridge } from '../../../test/support/bridge';
import { createProxyHandler } from '../src';

describe('createProxyHandler against a real bridge', () => {
  let bridge: TestBridge;
  let apiKey: string;
  let orgId: string;
  let jwtSecret: string;
  let proxy: http.Server;
  let proxyUrl: string;

  beforeAll(async () => {
    bridge = await startBridge('sqlite');
    ({ key: apiKey } = await bridge.newUser());
    const org = await bridge.request('POST', '/api/public/organizations?include=jwtSecret', {
      key: apiKey,
      body: { name: 'Proxied' },
    });
    orgId = org.body.data.id;
    jwtSecret = org.body.data.jwtSecret;
    const handler = createProxyHandler({
      baseUrl: bridge.url,
      apiKey,
      mountPath: '/bridge',
      authorize: (req) => req.headers.cookie === 'host_session=ok',
    });
    proxy = http.createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const address = proxy.address();
    proxyUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/bridge`;
  });
  afterAll(async () => {
    await new Promise((resolve) => proxy.close(resolve));
    await bridge.stop();
  });

  const get = (path: string, cookie = 'host_session=ok') =>
    fetch(`${proxyUrl}${path}`, { headers: { cookie } });

  it('forwards an allowed read with the host key and passes the request id back', async () => {
    const res = await get('/api/public/organizations?limit=10');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const body = await res.json();
    expect(body.data.map((o: { id: string }) => o.id)).toContain(orgId);
  });

  it('answers 401 when the host does not authorize the browser request', async () => {
    const res = await get('/api/public/organizations', 'host_session=nope');
    expect(res.status).toBe(401);
    expect((await res.json()).error).toEqual({
      title: 'Unauthorized',
      code: 'invalid_credentials',
      detail: 'Sign in to the host application first',
    });
  });

  it('refuses include=jwtSecret, so the secret never reaches a browser', async () => {
    const res = await get(`/api/public/organizations/${orgId}?include=jwtSecret`);
    expect(res.status).toBe(403);
    const text = await res.text();
    expect(text).not.toContain(jwtSecret);
    expect(JSON.parse(text).error).toMatchObject({ title: 'Forbidden', code: 'forbidden' });
  });

  it('answers 404 for a route outside the allow-list (a write)', async () => {
    const res = await fetch(`${proxyUrl}/api/public/organizations`, {
      method: 'POST',
      headers: { cookie: 'host_session=ok', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Sneaky' }),
    });
    expect(res.status).toBe(404);
    expect((await res.json()).error).toMatchObject({ title: 'NotFound', code: 'route_not_found' });
  });

  it('passes the bridge errors through unchanged', async () => {
    const res = await get('/api/public/organizations/org_00000000000000000000000000');
    expect(res.status).toBe(404);
    expect((await res.json()).error).toMatchObject({
      title: 'NotFound',
      code: 'organization_not_found',
    });
  });

  it('sends the host key, not the browser credentials, and never returns the key', async () => {
    const sent: Headers[] = [];
    const handler = createProxyHandler({
      baseUrl: bridge.url,
      apiKey,
      authorize: () => true,
      fetch: (input, init) => {
        sent.push(new Headers(init?.headers));
        return fetch(input, init);
      },
    });
    const server = http.createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const res = await fetch(`http://127.0.0.1:${port}/api/public/organizations`, {
      headers: { cookie: 'host_session=ok', authorization: 'Bearer browser-token' },
    });
    const text = await res.text();
    await new Promise((resolve) => server.close(resolve));
    expect(res.status).toBe(200);
    expect(sent[0]?.get('authorization')).toBe(`Bearer ${apiKey}`);
    expect(sent[0]?.get('cookie')).toBeNull();
    expect(text).not.toContain(apiKey);
  });

  it('refuses to be created without an authorize check', () => {
    expect(() =>
      createProxyHandler({ baseUrl: bridge.url, apiKey, authorize: undefined as never }),
    ).toThrow(/authorize is required/);
  });

  it('refuses a route that is not an authenticated API route', () => {
    expect(() =>
      createProxyHandler({
        baseUrl: bridge.url,
        apiKey,
        authorize: () => true,
        allow: ['ssoExchange'],
      }),
    ).toThrow(/not a proxiable route/);
  });
});
