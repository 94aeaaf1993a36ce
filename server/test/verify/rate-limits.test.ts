import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type TestBridge } from '../../../test/support/bridge';
import { freePort } from '../../../test/support/free-port';
import { claimsFor, createOrg, signHs256 } from '../sso/support';

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

describe('the per-person verify budget, at its documented default (30 a minute)', () => {
  let host: TestBridge;
  let port: number;

  beforeAll(async () => {
    host = await startBridge('sqlite');
    port = await freePort();
  });
  afterAll(() => host?.stop());

  const verifyOn = (credential: string, orgId: string) =>
    host.request('POST', `/api/public/organizations/${orgId}/data-sources/verify`, {
      key: credential,
      body: { dialect: 'POSTGRES', host: '127.0.0.1', port, username: 'u' },
    });

  async function adminSession(org: { id: string; jwtSecret: string }) {
    const jwt = await signHs256(claimsFor(org.id, { role: 'ADMIN' }), org.jwtSecret);
    const res = await host.request('POST', '/api/sso/jwt', { body: { jwt } });
    expect(res.status).toBe(200);
    return res.body.data.sessionToken as string;
  }

  it('caps one key over 3 organizations plus 2 SSO ADMIN identities minted in each at 30 in all', async () => {
    const person = await host.newUser();
    const credentials: { credential: string; orgId: string }[] = [];
    for (let i = 0; i < 3; i++) {
      const org = await createOrg(host, person.key);
      credentials.push({ credential: person.key, orgId: org.id });
      for (let j = 0; j < 2; j++)
        credentials.push({ credential: await adminSession(org), orgId: org.id });
    }
    // 5 rounds over the 9 credentials: 15 a organization (under its own 30), 45 in all.
    const statuses: number[] = [];
    const limited: Awaited<ReturnType<typeof verifyOn>>[] = [];
    for (let round = 0; round < 5; round++) {
      for (const { credential, orgId } of credentials) {
        const res = await verifyOn(credential, orgId);
        statuses.push(res.status);
        if (res.status === 429) limited.push(res);
      }
    }
    expect(statuses.filter((s) => s === 422)).toHaveLength(30);
    expect(statuses.slice(0, 30).every((s) => s === 422)).toBe(true);
    expect(limited).toHaveLength(15);
    for (const res of limited) {
      expect(res.body.error).toMatchObject({ title: 'TooManyRequests', code: 'rate_limited' });
      const retryAfter = Number(res.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(res.body.error.params).toEqual({ retryAfter });
      expect(res.headers.get('ratelimit-limit')).toBe('30');
    }
    // A health check is a verify too: the budget holds it back as well.
    const ds = await host.request(
      'POST',
      `/api/public/organizations/${credentials[1]!.orgId}/data-sources`,
      {
        key: credentials[1]!.credential,
        body: { displayName: 'Spent', dialect: 'POSTGRES', host: '127.0.0.1', port, username: 'u' },
      },
    );
    expect(ds.status).toBe(201);
    const check = await host.request(
      'POST',
      `/api/public/organizations/${credentials[1]!.orgId}/data-sources/${ds.body.data.id}/health-check`,
      { key: credentials[1]!.credential },
    );
    expect(check.status).toBe(429);
    expect(check.body.error.code).toBe('rate_limited');
  });

  it("leaves another host's organizations and their SSO identities their own budget", async () => {
    const other = await host.newUser();
    const org = await createOrg(host, other.key);
    expect((await verifyOn(await adminSession(org), org.id)).status).toBe(422);
    expect((await verifyOn(other.key, org.id)).status).toBe(422);
  });
});
