import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OriginIndex } from '../src/embed-origins';
import { createOrg } from './sso-http/support';
import { ENGINES, startBridge, type TestBridge } from './support/bridge';

describe('OriginIndex', () => {
  const index = new OriginIndex([
    'https://app.example.com',
    'https://*.tenants.example.com',
    'https://admin.example.org:8443',
    'https://*.ports.example.org:9000',
    'http://localhost:3000',
  ]);

  it('allows an exact origin', () => {
    expect(index.allows('https://app.example.com')).toBe(true);
  });

  it('refuses a sibling of an exact origin', () => {
    expect(index.allows('https://www.example.com')).toBe(false);
  });

  it('allows a subdomain under a wildcard, however deep', () => {
    expect(index.allows('https://acme.tenants.example.com')).toBe(true);
    expect(index.allows('https://a.b.tenants.example.com')).toBe(true);
  });

  it('refuses the apex of a wildcard', () => {
    expect(index.allows('https://tenants.example.com')).toBe(false);
  });

  it('refuses a host that only ends with the wildcard domain, without a dot boundary', () => {
    expect(index.allows('https://eviltenants.example.com')).toBe(false);
  });

  it('allows an exact origin only on its port', () => {
    expect(index.allows('https://admin.example.org:8443')).toBe(true);
    expect(index.allows('https://admin.example.org')).toBe(false);
  });

  it('allows a wildcard only on its port', () => {
    expect(index.allows('https://x.ports.example.org:9000')).toBe(true);
    expect(index.allows('https://x.ports.example.org')).toBe(false);
  });

  it('treats the default port as no port', () => {
    expect(index.allows('https://app.example.com:443')).toBe(true);
  });

  it('refuses http:// of an https origin and https:// of an http one', () => {
    expect(index.allows('http://app.example.com')).toBe(false);
    expect(index.allows('http://acme.tenants.example.com')).toBe(false);
    expect(index.allows('https://localhost:3000')).toBe(false);
  });

  it('refuses null and anything that is not a plain origin', () => {
    for (const origin of ['null', '', 'https://app.example.com/path', 'app.example.com']) {
      expect(index.allows(origin)).toBe(false);
    }
  });

  it('ignores stored entries that are not normalized patterns', () => {
    const odd = new OriginIndex(['HTTPS://APP.EXAMPLE.COM', 'https://*.', 'not an origin']);
    expect(odd.allows('https://app.example.com')).toBe(false);
  });
});

describe.each(ENGINES)('a preflight without an organization in the path on %s', (engine) => {
  let bridge: TestBridge;
  let owner: { key: string };
  let orgId: string;

  beforeAll(async () => {
    bridge = await startBridge(engine);
    owner = await bridge.newUser();
    orgId = (await createOrg(bridge, owner.key, { embedAllowedOrigins: ['https://a.example.com'] }))
      .id;
  });
  afterAll(() => bridge.stop());

  const preflight = (origin: string) =>
    bridge.request('OPTIONS', '/api/sso/jwt', {
      headers: { origin, 'access-control-request-method': 'POST' },
    });
  const setOrigins = (origins: string[]) =>
    bridge.deps.store.db
      .updateTable('organizations')
      .set({ embedAllowedOrigins: JSON.stringify(origins) })
      .where('id', '=', orgId)
      .execute();

  it('allows an origin as soon as a new organization allows it', async () => {
    expect((await preflight('https://new.example.net')).status).toBe(403);
    await createOrg(bridge, owner.key, { embedAllowedOrigins: ['https://new.example.net'] });
    const res = await preflight('https://new.example.net');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://new.example.net');
  });

  it("allows an origin as soon as an organization's list gains it", async () => {
    expect((await preflight('https://x.added.example.com')).status).toBe(403);
    await setOrigins(['https://a.example.com', 'https://*.added.example.com']);
    expect((await preflight('https://x.added.example.com')).status).toBe(204);
  });

  it("refuses an origin as soon as an organization's list drops it", async () => {
    await setOrigins(['https://a.example.com']);
    expect((await preflight('https://a.example.com')).status).toBe(204);
    await setOrigins([]);
    const res = await preflight('https://a.example.com');
    expect(res.status).toBe(403);
    expect(res.body.error.title).toBe('Forbidden');
    expect(res.body.error.code).toBe('origin_not_allowed');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});
