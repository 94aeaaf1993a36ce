import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type TestBridge } from '../../../test/support/bridge';
import { freePort } from '../../../test/support/free-port';

let bridge: TestBridge;
let closedPort: number;

beforeAll(async () => {
  bridge = await startBridge('sqlite', { BRIDGE_VERIFY_RATE_LIMIT_PER_MINUTE: '3' });
  closedPort = await freePort(); // refused at once: each verify is a quick 422
});
afterAll(() => bridge?.stop());

async function newOrg(key: string, name: string): Promise<string> {
  const res = await bridge.request('POST', '/api/public/organizations', { key, body: { name } });
  expect(res.status).toBe(201);
  return res.body.data.id;
}

const verify = (key: string, orgId: string) =>
  bridge.request('POST', `/api/public/organizations/${orgId}/data-sources/verify`, {
    key,
    body: { dialect: 'POSTGRES', host: '127.0.0.1', port: closedPort, username: 'u' },
  });

function expectLimited(res: Awaited<ReturnType<typeof verify>>) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({
    error: {
      title: 'TooManyRequests',
      detail: expect.stringMatching(/^Rate limit exceeded; retry in \d+ s$/),
      code: 'rate_limited',
      params: { retryAfter: expect.any(Number) },
    },
  });
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(res.body.error.params.retryAfter).toBe(retryAfter);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(res.headers.get('ratelimit-remaining')).toBe('0');
}

describe('verify rate limits', () => {
  it('limits one user across organizations, and each organization across users', async () => {
    const spreader = await bridge.newUser();
    const other = await bridge.newUser();
    const orgA = await newOrg(spreader.key, 'Spread A');
    const orgB = await newOrg(spreader.key, 'Spread B');
    const orgC = await newOrg(other.key, 'Other C');

    // 3 per minute per user: the fourth is refused although orgB has seen only one.
    expect((await verify(spreader.key, orgA)).status).toBe(422);
    expect((await verify(spreader.key, orgA)).status).toBe(422);
    const third = await verify(spreader.key, orgB);
    expect(third.status).toBe(422);
    expect(third.headers.get('ratelimit-remaining')).toBe('0'); // the user's counter is the tightest
    expectLimited(await verify(spreader.key, orgB));

    // Another user is not affected by the first one's counter...
    expect((await verify(other.key, orgC)).status).toBe(422);

    // ...but an organization's counter holds whoever calls: orgA has had two.
    const added = await bridge.request('POST', `/api/public/organizations/${orgA}/members`, {
      key: spreader.key,
      body: { email: other.email, role: 'ADMIN' },
    });
    expect(added.status).toBe(201);
    expect((await verify(other.key, orgA)).status).toBe(422);
    expectLimited(await verify(other.key, orgA));
  });
});
