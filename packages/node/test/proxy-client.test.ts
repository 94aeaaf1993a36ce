import http from 'node:http';
import {
  type BridgeClient,
  type ClientRouteId,
  canCall,
  createProxyClient,
  isBridgeError,
} from '@bridgekit/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type TestBridge } from '../../../test/support/bridge';
import { createProxyHandler, DEFAULT_PROXY_ROUTES } from '../src';

// The browser half of the API-key proxy (`createProxyClient`) against its server half
// (`createProxyHandler`) in front of a real bridge: what a host's admin page does.

describe('createProxyClient through createProxyHandler to a real bridge', () => {
  let bridge: TestBridge;
  let orgId: string;
  const servers: http.Server[] = [];
  let requests: string[] = [];

  /** A proxy with `allow`, and a client of it that sends the host's cookie as a browser would. */
  async function proxyClient(allow?: readonly ClientRouteId[]) {
    const { key } = await bridge.newUser();
    const handler = createProxyHandler({
      baseUrl: bridge.url,
      apiKey: key,
      mountPath: '/bridge',
      authorize: (req) => req.headers.cookie === 'host_session=ok',
      allow,
    });
    const server = http.createServer((req, res) => {
      requests.push(`${req.method} ${req.url} auth=${req.headers.authorization ?? 'none'}`);
      void handler(req, res);
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const client = createProxyClient({
      baseUrl: `http://127.0.0.1:${port}/bridge`,
      routes: allow,
      fetch: (url, init) =>
        fetch(url, { ...init, headers: { ...init.headers, cookie: 'host_session=ok' } }),
    });
    const org = await bridge.request('POST', '/api/public/organizations', {
      key,
      body: { name: 'Proxied' },
    });
    orgId = org.body.data.id;
    return client;
  }

  beforeAll(async () => {
    bridge = await startBridge('sqlite');
  });
  afterAll(async () => {
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
    await bridge.stop();
  });

  it('reads through the proxy with no token of its own; the backend adds its key', async () => {
    requests = [];
    const client = await proxyClient();
    const { data } = await client.listOrganizations();
    expect(data.map((o) => o.id)).toEqual([orgId]);
    expect(requests).toEqual(['GET /bridge/api/public/organizations auth=none']);
  });

  it('refuses a route the proxy does not forward at once, without a request', async () => {
    requests = [];
    const client = await proxyClient();
    const error = await client
      .verifyDataSource({ params: { orgId }, body: { dialect: 'POSTGRES' } as never })
      .catch((e: unknown) => e);
    expect(isBridgeError(error)).toBe(true);
    expect(error).toMatchObject({
      status: 404,
      title: 'NotFound',
      code: 'route_not_found',
      detail: 'verifyDataSource is not forwarded by this proxy',
    });
    expect(requests).toEqual([]);
  });

  it('says which calls it can make: the default is the handler default', async () => {
    const client = await proxyClient();
    for (const id of DEFAULT_PROXY_ROUTES) expect(canCall(client, id as never), id).toBe(true);
    expect(canCall(client, 'verifyDataSource')).toBe(false);
    expect(canCall(client, 'createDataSource')).toBe(false);
    expect(canCall({} as BridgeClient, 'verifyDataSource')).toBe(true);
  });

  it('makes the calls of a wider allow list, writes included', async () => {
    const client = await proxyClient(['listOrganizations', 'updateOrganization']);
    expect(canCall(client, 'updateOrganization')).toBe(true);
    expect(canCall(client, 'getOrganization')).toBe(false);
    const { data } = await client.updateOrganization({
      params: { orgId },
      body: { name: 'Renamed' },
    });
    expect(data.name).toBe('Renamed');
  });
});
