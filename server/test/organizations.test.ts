import { Organization, pageOf } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from './support/bridge';

describe.each(ENGINES)('organizations on %s', (engine) => {
  let bridge: TestBridge;
  let admin: { key: string; userId: string };

  beforeAll(async () => {
    bridge = await startBridge(engine);
    admin = await bridge.newUser();
  });
  afterAll(() => bridge.stop());

  it('creates an organization with every field of the contract', async () => {
    const res = await bridge.request('POST', '/api/public/organizations', {
      key: admin.key,
      body: { name: 'Acme Analytics', customAiContext: 'Sales data', fullEmbedEnabled: true },
    });
    expect(res.status).toBe(201);
    const org = Organization.parse(res.body.data);
    expect(org).toMatchObject({
      name: 'Acme Analytics',
      slug: 'acme-analytics',
      customAiContext: 'Sales data',
      onboardingStatus: 'STARTED',
      fullEmbedEnabled: true,
      embedAllowedOrigins: [],
    });
    expect(org.id).toMatch(/^org_/);
    expect(org.createdAt).toBe(org.updatedAt);
    expect(res.body.data).not.toHaveProperty('jwtSecret');
  });

  it('lists what it created, paginated', async () => {
    const res = await bridge.request('GET', '/api/public/organizations', { key: admin.key });
    expect(res.status).toBe(200);
    const page = pageOf(Organization).parse(res.body);
    expect(page.data.map((o) => o.name)).toContain('Acme Analytics');
    expect(page.pagination).toEqual({ nextCursor: null, hasMore: false });
  });
});
