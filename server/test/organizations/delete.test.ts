import { dataOf, Organization } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';
import {
  claimsFor,
  createOrg,
  embedSignIn,
  handoffCodeOf,
  kitSignIn,
  redeemCode,
  signHs256,
} from '../sso/support';

const HOST = 'https://host.example.com';
const UNKNOWN_ORG = 'org_00000000000000000000000000';
const NOT_FOUND = {
  title: 'NotFound',
  detail: 'Organization not found',
  code: 'organization_not_found',
};
const UNAUTHORIZED = {
  title: 'Unauthorized',
  detail: 'Missing, invalid, revoked or expired credentials',
  code: 'invalid_credentials',
};

type User = { key: string; userId: string; email: string };
type Org = Awaited<ReturnType<typeof createOrg>>;

describe.each(ENGINES)('DELETE /organizations/{orgId} on %s', (engine) => {
  let bridge: TestBridge;
  let admin: User;
  let memberUser: User;
  let stranger: User;

  beforeAll(async () => {
    bridge = await startBridge(engine);
    admin = await bridge.newUser();
    memberUser = await bridge.newUser();
    stranger = await bridge.newUser();
  });
  afterAll(() => bridge.stop());

  const del = (orgId: string, key = admin.key) =>
    bridge.request('DELETE', `/api/public/organizations/${orgId}`, { key });

  /** An organization with a MEMBER, a data source holding a password, and full embed on. */
  async function populatedOrg(): Promise<Org & { dataSourceId: string }> {
    const org = await createOrg(bridge, admin.key, {
      fullEmbedEnabled: true,
      embedAllowedOrigins: [HOST],
    });
    await bridge.request('POST', `/api/public/organizations/${org.id}/members`, {
      key: admin.key,
      body: { email: memberUser.email, role: 'MEMBER' },
    });
    const ds = await bridge.request('POST', `/api/public/organizations/${org.id}/data-sources`, {
      key: admin.key,
      body: {
        dialect: 'POSTGRES',
        displayName: 'Warehouse',
        host: 'db.example.com',
        username: 'app',
        password: 'hunter2-sealed',
      },
    });
    if (ds.status !== 201) throw new Error(`data source: ${ds.text}`);
    return { ...org, dataSourceId: ds.body.data.id };
  }

  const rowsOf = async (orgId: string) => {
    const { db } = bridge.deps.store;
    const count = async (table: 'members' | 'dataSources' | 'revokedSessions' | 'ssoJti') =>
      (
        await db
          .selectFrom(table)
          .select('organizationId')
          .where('organizationId', '=', orgId)
          .execute()
      ).length;
    return {
      members: await count('members'),
      dataSources: await count('dataSources'),
      revokedSessions: await count('revokedSessions'),
      ssoJti: await count('ssoJti'),
    };
  };

  it('answers the deleted record, then 404 for it and everything under it', async () => {
    const org = await populatedOrg();
    const res = await del(org.id);
    expect(res.status).toBe(200);
    const { jwtSecret: _secret, dataSourceId, ...record } = org;
    expect(dataOf(Organization).parse(res.body).data).toEqual(record);
    expect(res.body.data).not.toHaveProperty('jwtSecret');
    for (const path of ['', '/members', '/data-sources', `/data-sources/${dataSourceId}`]) {
      const after = await bridge.request('GET', `/api/public/organizations/${org.id}${path}`, {
        key: admin.key,
      });
      expect(after.status).toBe(404);
      expect(after.body.error).toEqual(NOT_FOUND);
    }
    const again = await del(org.id);
    expect(again.status).toBe(404);
    expect(again.body.error).toEqual(NOT_FOUND);
  });

  it('deletes its memberships, data sources (with their sealed secrets), revocations and used jtis', async () => {
    const org = await populatedOrg();
    const loggedOut = await kitSignIn(bridge, org);
    await bridge.request('POST', '/api/sso/logout', { key: loggedOut.sessionToken });
    const before = await rowsOf(org.id);
    expect(before).toEqual({ members: 3, dataSources: 1, revokedSessions: 1, ssoJti: 1 });
    expect((await del(org.id)).status).toBe(200);
    expect(await rowsOf(org.id)).toEqual({
      members: 0,
      dataSources: 0,
      revokedSessions: 0,
      ssoJti: 0,
    });
    const anySecret = await bridge.deps.store.db
      .selectFrom('dataSources')
      .select('id')
      .where('id', '=', org.dataSourceId)
      .execute();
    expect(anySecret).toEqual([]);
  });

  it('keeps the users and their keys: the member still lists its other organizations', async () => {
    const org = await populatedOrg();
    const own = await createOrg(bridge, memberUser.key);
    expect((await del(org.id)).status).toBe(200);
    const user = await bridge.deps.store.db
      .selectFrom('users')
      .select('id')
      .where('id', '=', memberUser.userId)
      .executeTakeFirst();
    expect(user?.id).toBe(memberUser.userId);
    const list = await bridge.request('GET', '/api/public/organizations?limit=100', {
      key: memberUser.key,
    });
    expect(list.status).toBe(200);
    const ids = list.body.data.map((o: Organization) => o.id);
    expect(ids).toContain(own.id);
    expect(ids).not.toContain(org.id);
  });

  it('ends its kit and full-embed sessions and refuses its SSO tokens', async () => {
    const org = await populatedOrg();
    const kit = await kitSignIn(bridge, org);
    const embed = await embedSignIn(bridge, org, HOST);
    // A code issued but not yet redeemed when the organization goes.
    const signIn = await bridge.request(
      'GET',
      `/api/sso/jwt?jwt=${await signHs256(claimsFor(org.id), org.jwtSecret)}`,
      { headers: { referer: `${HOST}/app` } },
    );
    const pending = handoffCodeOf(signIn.headers.get('location'));
    expect((await del(org.id)).status).toBe(200);
    for (const token of [kit.sessionToken, embed.sessionToken]) {
      const res = await bridge.request('GET', '/api/sso/session', { key: token });
      expect(res.status).toBe(401);
      expect(res.body.error).toEqual(UNAUTHORIZED);
    }
    const traded = await redeemCode(bridge, pending);
    expect(traded.status).toBe(401);
    expect(traded.body.error.code).toBe('embed_code_invalid');
    const left = await bridge.deps.store.db
      .selectFrom('embedHandoffs')
      .select('codeHash')
      .where('organizationId', '=', org.id)
      .execute();
    expect(left).toEqual([]);
    const page = await bridge.request('GET', `/embed/orgs/${org.slug}`, {
      headers: { accept: 'text/html' },
    });
    expect(page.status).toBe(404);
    const jwt = await signHs256(claimsFor(org.id), org.jwtSecret);
    const exchange = await bridge.request('POST', '/api/sso/jwt', { body: { jwt } });
    expect(exchange.status).toBe(401);
    expect(exchange.body.error.detail).toBe('Invalid or expired SSO token');
  });

  it('frees its slug for a new organization', async () => {
    const org = await populatedOrg();
    expect((await del(org.id)).status).toBe(200);
    const again = await bridge.request('POST', '/api/public/organizations', {
      key: admin.key,
      body: { name: 'Reborn', slug: org.slug },
    });
    expect(again.status).toBe(201);
    expect(again.body.data.slug).toBe(org.slug);
  });

  it('answers 403 api_key_required to an ADMIN or MEMBER session, deleting nothing', async () => {
    const org = await populatedOrg();
    const admin = await kitSignIn(bridge, org, { role: 'ADMIN' });
    const member = await kitSignIn(bridge, org, { email: memberUser.email });
    for (const session of [admin, member]) {
      const res = await del(org.id, session.sessionToken);
      expect(res.status).toBe(403);
      expect(res.body.error).toEqual({
        title: 'Forbidden',
        detail: 'This needs an API key, not a session token',
        code: 'api_key_required',
      });
      const info = await bridge.request('GET', '/api/sso/session', { key: session.sessionToken });
      expect(info.status).toBe(200);
    }
    expect((await rowsOf(org.id)).dataSources).toBe(1);
  });

  it('answers 403 to a MEMBER key, deleting nothing', async () => {
    const org = await populatedOrg();
    const res = await del(org.id, memberUser.key);
    expect(res.status).toBe(403);
    expect(res.body.error).toEqual({
      title: 'Forbidden',
      detail: 'Only an ADMIN of the organization can do this',
      code: 'admin_required',
    });
    expect(
      (await bridge.request('GET', `/api/public/organizations/${org.id}`, { key: admin.key }))
        .status,
    ).toBe(200);
    expect((await rowsOf(org.id)).dataSources).toBe(1);
  });

  it('answers 404 to a non-member, the same body as an unknown id, deleting nothing', async () => {
    const org = await populatedOrg();
    const unknown = await del(UNKNOWN_ORG, stranger.key);
    const res = await del(org.id, stranger.key);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(unknown.body);
    expect(res.body.error).toEqual(NOT_FOUND);
    expect((await rowsOf(org.id)).members).toBe(2);
  });

  it('answers 401 without credentials', async () => {
    const res = await bridge.request('DELETE', `/api/public/organizations/${UNKNOWN_ORG}`);
    expect(res.status).toBe(401);
    expect(res.body.error).toEqual(UNAUTHORIZED);
  });
});
