import { dataOf, Organization, pageOf, SsoSession } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';
import { createSessionTokens, type SessionGrant } from '../../src/sso/session-token';
import { claimsFor, createOrg, signHs256 } from './support';

const SessionResponse = dataOf(SsoSession);

// The bridge's own PostgreSQL answers verify without TLS (trust auth, private networks allowed in test).
const LOCAL_PG = {
  dialect: 'POSTGRES',
  host: '127.0.0.1',
  port: 5432,
  username: 'postgres',
  databaseName: 'postgres',
  sslEnabled: false,
};

describe.each(ENGINES)('embed session scope on %s', (engine) => {
  let bridge: TestBridge;
  let orgA: { id: string; jwtSecret: string };
  let orgB: { id: string; jwtSecret: string };
  let member: SsoSession;
  let admin: SsoSession;

  async function signIn(org: { id: string; jwtSecret: string }, claims: Record<string, unknown>) {
    const jwt = await signHs256(claimsFor(org.id, claims), org.jwtSecret);
    const res = await bridge.request('POST', '/api/sso/jwt', { body: { jwt } });
    if (res.status !== 200) throw new Error(`sign-in: ${res.status} ${res.text}`);
    return SessionResponse.parse(res.body).data;
  }

  beforeAll(async () => {
    bridge = await startBridge(engine);
    const owner = await bridge.newUser();
    orgA = await createOrg(bridge, owner.key);
    orgB = await createOrg(bridge, owner.key);
    // A member of both organizations, whose session is for A only.
    await signIn(orgB, { email: 'both@example.com' });
    member = await signIn(orgA, { email: 'both@example.com' });
    admin = await signIn(orgA, { email: 'boss@example.com', role: 'ADMIN' });
  });
  afterAll(() => bridge.stop());

  const sessionKey = () => new TextEncoder().encode(bridge.deps.config.sessionSecret);
  const claimsOf = (s: SsoSession): SessionGrant => ({
    memberId: s.member.id,
    userId: s.member.userId,
    orgId: s.organization.id,
    role: s.member.role,
  });

  it('reads its own organization', async () => {
    const res = await bridge.request('GET', `/api/public/organizations/${orgA.id}`, {
      key: member.sessionToken,
    });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(orgA.id);
  });

  it('gets 404 on another organization it belongs to', async () => {
    const res = await bridge.request('GET', `/api/public/organizations/${orgB.id}`, {
      key: member.sessionToken,
    });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ title: 'NotFound', code: 'organization_not_found' });
  });

  it("gets 404 on another organization's members", async () => {
    const res = await bridge.request('GET', `/api/public/organizations/${orgB.id}/members`, {
      key: member.sessionToken,
    });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ title: 'NotFound', code: 'organization_not_found' });
  });

  it("gets 404 on another organization's data sources", async () => {
    const res = await bridge.request('GET', `/api/public/organizations/${orgB.id}/data-sources`, {
      key: member.sessionToken,
    });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ title: 'NotFound', code: 'organization_not_found' });
  });

  it('gets the same 404 for an organization that does not exist', async () => {
    const other = await bridge.request('GET', `/api/public/organizations/${orgB.id}`, {
      key: member.sessionToken,
    });
    const absent = await bridge.request(
      'GET',
      '/api/public/organizations/org_00000000000000000000',
      { key: member.sessionToken },
    );
    expect(absent.status).toBe(404);
    expect(absent.body).toEqual(other.body);
  });

  it('lists only its own organization', async () => {
    const res = await bridge.request('GET', '/api/public/organizations', {
      key: member.sessionToken,
    });
    expect(res.status).toBe(200);
    const page = pageOf(Organization).parse(res.body);
    expect(page.data.map((o) => o.id)).toEqual([orgA.id]);
  });

  it('as MEMBER gets 403 on verify', async () => {
    const res = await bridge.request(
      'POST',
      `/api/public/organizations/${orgA.id}/data-sources/verify`,
      { key: member.sessionToken, body: LOCAL_PG },
    );
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ title: 'Forbidden', code: 'admin_required' });
  });

  it('as MEMBER gets 403 on adding a member', async () => {
    const res = await bridge.request('POST', `/api/public/organizations/${orgA.id}/members`, {
      key: member.sessionToken,
      body: { email: 'added-by-member@example.com', role: 'MEMBER' },
    });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ title: 'Forbidden', code: 'admin_required' });
  });

  it('as MEMBER gets 403 on creating a data source', async () => {
    const res = await bridge.request('POST', `/api/public/organizations/${orgA.id}/data-sources`, {
      key: member.sessionToken,
      body: { ...LOCAL_PG, displayName: 'Warehouse' },
    });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ title: 'Forbidden', code: 'admin_required' });
  });

  it('as ADMIN may verify', async () => {
    const res = await bridge.request(
      'POST',
      `/api/public/organizations/${orgA.id}/data-sources/verify`,
      { key: admin.sessionToken, body: LOCAL_PG },
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { success: true } });
  });

  it('as ADMIN may add a member', async () => {
    const res = await bridge.request('POST', `/api/public/organizations/${orgA.id}/members`, {
      key: admin.sessionToken,
      body: { email: 'added-by-admin@example.com', role: 'MEMBER' },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ organizationId: orgA.id, role: 'MEMBER' });
  });

  it('as ADMIN still gets 404 outside its organization', async () => {
    const res = await bridge.request('GET', `/api/public/organizations/${orgB.id}/members`, {
      key: admin.sessionToken,
    });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ title: 'NotFound', code: 'organization_not_found' });
  });

  it('cannot create organizations (403)', async () => {
    const res = await bridge.request('POST', '/api/public/organizations', {
      key: admin.sessionToken,
      body: { name: 'From a session' },
    });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ title: 'Forbidden', code: 'api_key_required' });
  });

  it('accepts a session re-issued with the configured key (control)', async () => {
    const sessions = createSessionTokens({ key: sessionKey() });
    const { token } = await sessions.issue(claimsOf(member));
    const res = await bridge.request('GET', `/api/public/organizations/${orgA.id}`, {
      key: token,
    });
    expect(res.status).toBe(200);
  });

  it('answers an expired session with 401', async () => {
    const past = new Date(Date.now() - 60 * 60_000);
    const sessions = createSessionTokens({ key: sessionKey(), now: () => past });
    const { token, expiresAt } = await sessions.issue(claimsOf(member));
    expect(expiresAt.getTime()).toBeLessThan(Date.now());
    const res = await bridge.request('GET', `/api/public/organizations/${orgA.id}`, {
      key: token,
    });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ title: 'Unauthorized', code: 'invalid_credentials' });
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('answers a session with a tampered payload with 401', async () => {
    const [header, payload, signature] = member.sessionToken.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, org: orgB.id })).toString('base64url');
    const res = await bridge.request('GET', `/api/public/organizations/${orgB.id}`, {
      key: `${header}.${forged}.${signature}`,
    });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ title: 'Unauthorized', code: 'invalid_credentials' });
  });

  it('answers a session with a flipped signature character with 401', async () => {
    const token = member.sessionToken;
    const last = token.at(-2) === 'A' ? 'B' : 'A';
    const res = await bridge.request('GET', `/api/public/organizations/${orgA.id}`, {
      key: `${token.slice(0, -2)}${last}${token.at(-1)}`,
    });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ title: 'Unauthorized', code: 'invalid_credentials' });
  });

  it('answers a session signed with another key with 401', async () => {
    const sessions = createSessionTokens({ key: new Uint8Array(32).fill(7) });
    const { token } = await sessions.issue(claimsOf(member));
    const res = await bridge.request('GET', `/api/public/organizations/${orgA.id}`, {
      key: token,
    });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ title: 'Unauthorized', code: 'invalid_credentials' });
  });

  it('answers a host SSO token used as a bearer token with 401', async () => {
    const jwt = await signHs256(claimsFor(orgA.id), orgA.jwtSecret);
    const res = await bridge.request('GET', `/api/public/organizations/${orgA.id}`, { key: jwt });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ title: 'Unauthorized', code: 'invalid_credentials' });
  });
});
