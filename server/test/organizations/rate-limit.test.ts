import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';
import { addMember } from '../../src/domain/members';
import { createOrganization } from '../../src/domain/organizations';

type Call = (orgId: string, spareId: string) => [method: string, path: string, body?: unknown];

const ROUTES: [string, Call][] = [
  ['updateOrganization', (org) => ['PATCH', `/api/public/organizations/${org}`, { name: 'N' }]],
  ['deleteOrganization', (org) => ['DELETE', `/api/public/organizations/${org}`]],
  ['rotateJwtSecret', (org) => ['POST', `/api/public/organizations/${org}/jwt-secret`]],
  [
    'updateMember',
    (org, spare) => [
      'PATCH',
      `/api/public/organizations/${org}/members/${spare}`,
      { role: 'ADMIN' },
    ],
  ],
  ['removeMember', (org, spare) => ['DELETE', `/api/public/organizations/${org}/members/${spare}`]],
];

describe.each(ENGINES)('rate limits of the lifecycle routes on %s', (engine) => {
  let bridge: TestBridge;

  beforeAll(async () => {
    bridge = await startBridge(engine, { BRIDGE_RATE_LIMIT_PER_MINUTE: '2' });
  });
  afterAll(() => bridge.stop());

  it.each(ROUTES)(
    '%s counts against the key: the third request in a minute is a 429',
    async (_id, call) => {
      // Set up through the domain, so that only the route's own requests count.
      const admin = await bridge.newUser();
      const org = await createOrganization(bridge.deps, admin.userId, { name: 'Limited' });
      const spare = await addMember(bridge.deps, org.id, {
        email: `spare-${org.id}@example.com`,
        role: 'MEMBER',
      });
      const [method, path, body] = call(org.id, spare.id);
      const send = () => bridge.request(method, path, { key: admin.key, body });
      for (const n of [1, 2]) {
        const res = await send();
        expect(res.status).toBeLessThan(429);
        expect(res.headers.get('ratelimit-remaining')).toBe(String(2 - n));
      }
      const limited = await send();
      expect(limited.status).toBe(429);
      expect(limited.body.error.title).toBe('TooManyRequests');
      expect(limited.body.error.detail).toMatch(/^Rate limit exceeded; retry in \d+ s$/);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    },
  );
});
