import { dataOf, Member } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';
import { createOrg, kitSignIn } from '../sso/support';

const UNKNOWN_ORG = 'org_00000000000000000000000000';
const UNKNOWN_MEMBER = 'mem_00000000000000000000000000';
const LAST_ADMIN_DEMOTED = {
  title: 'Conflict',
  detail:
    "This member is the last ADMIN of the organization and can't be demoted: make another member ADMIN first",
  fieldErrors: { role: 'The last ADMIN must stay ADMIN' },
  code: 'last_admin',
  fieldCodes: { role: 'last_admin' },
};
const LAST_ADMIN_REMOVED = {
  title: 'Conflict',
  detail:
    "This member is the last ADMIN of the organization and can't be removed: make another member ADMIN first",
  code: 'last_admin',
};
const ADMIN_ONLY = {
  title: 'Forbidden',
  detail: 'Only an ADMIN of the organization can do this',
  code: 'admin_required',
};
const MEMBER_NOT_FOUND = {
  title: 'NotFound',
  detail: 'Member not found',
  code: 'member_not_found',
};

type User = { key: string; userId: string; email: string };

describe.each(ENGINES)('member role changes and removal on %s', (engine) => {
  let bridge: TestBridge;
  let admin: User;
  let stranger: User;

  beforeAll(async () => {
    bridge = await startBridge(engine);
    admin = await bridge.newUser();
    stranger = await bridge.newUser();
  });
  afterAll(() => bridge.stop());

  const base = (orgId: string) => `/api/public/organizations/${orgId}/members`;
  const setRole = (orgId: string, memberId: string, body: unknown, key = admin.key) =>
    bridge.request('PATCH', `${base(orgId)}/${memberId}`, { key, body });
  const remove = (orgId: string, memberId: string, key = admin.key) =>
    bridge.request('DELETE', `${base(orgId)}/${memberId}`, { key });

  /** An organization of `admin` with one MEMBER (its own user and key). */
  async function orgWithMember() {
    const org = await createOrg(bridge, admin.key);
    const user = await bridge.newUser();
    const added = await bridge.request('POST', base(org.id), {
      key: admin.key,
      body: { email: user.email, role: 'MEMBER' },
    });
    const members = await bridge.request('GET', base(org.id), { key: admin.key });
    const adminRow = members.body.data.find((m: Member) => m.userId === admin.userId) as Member;
    return { org, user, member: added.body.data as Member, adminMember: adminRow };
  }

  const roleOf = async (orgId: string, memberId: string) =>
    (await bridge.request('GET', `${base(orgId)}/${memberId}`, { key: admin.key })).body.data?.role;

  describe('PATCH …/members/{id}', () => {
    it('promotes a MEMBER and answers the whole member', async () => {
      const { org, member } = await orgWithMember();
      const res = await setRole(org.id, member.id, { role: 'ADMIN' });
      expect(res.status).toBe(200);
      expect(dataOf(Member).parse(res.body).data).toEqual({ ...member, role: 'ADMIN' });
      expect(await roleOf(org.id, member.id)).toBe('ADMIN');
    });

    it('demotes an ADMIN while another ADMIN remains, itself included', async () => {
      const { org, member, adminMember } = await orgWithMember();
      await setRole(org.id, member.id, { role: 'ADMIN' });
      const res = await setRole(org.id, adminMember.id, { role: 'MEMBER' });
      expect(res.status).toBe(200);
      expect(res.body.data.role).toBe('MEMBER');
      // The demoted caller is a MEMBER from its next request on.
      const after = await setRole(org.id, member.id, { role: 'MEMBER' });
      expect(after.status).toBe(403);
      expect(after.body.error).toEqual(ADMIN_ONLY);
    });

    it('answers 200 for the role the member already has, changing nothing', async () => {
      const { org, member } = await orgWithMember();
      const res = await setRole(org.id, member.id, { role: 'MEMBER' });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(member);
    });

    it('answers 409 for demoting the last ADMIN, naming the role field', async () => {
      const { org, adminMember } = await orgWithMember();
      const res = await setRole(org.id, adminMember.id, { role: 'MEMBER' });
      expect(res.status).toBe(409);
      expect(res.body.error).toEqual(LAST_ADMIN_DEMOTED);
      expect(await roleOf(org.id, adminMember.id)).toBe('ADMIN');
    });

    it('answers 403 to a MEMBER, even for its own role', async () => {
      const { org, user, member, adminMember } = await orgWithMember();
      for (const id of [member.id, adminMember.id]) {
        const res = await setRole(org.id, id, { role: 'ADMIN' }, user.key);
        expect(res.status).toBe(403);
        expect(res.body.error).toEqual(ADMIN_ONLY);
      }
      expect(await roleOf(org.id, member.id)).toBe('MEMBER');
    });

    it("answers 404 for an unknown member and for another organization's member", async () => {
      const { org } = await orgWithMember();
      const other = await orgWithMember();
      for (const id of [UNKNOWN_MEMBER, other.member.id]) {
        const res = await setRole(org.id, id, { role: 'ADMIN' });
        expect(res.status).toBe(404);
        expect(res.body.error).toEqual(MEMBER_NOT_FOUND);
      }
      expect(await roleOf(other.org.id, other.member.id)).toBe('MEMBER');
    });

    it('answers 404 to a non-member, the same body as an unknown organization', async () => {
      const { org, member } = await orgWithMember();
      const unknown = await setRole(UNKNOWN_ORG, member.id, { role: 'ADMIN' }, stranger.key);
      const res = await setRole(org.id, member.id, { role: 'ADMIN' }, stranger.key);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(unknown.body);
      expect(res.body.error).toEqual({
        title: 'NotFound',
        detail: 'Organization not found',
        code: 'organization_not_found',
      });
    });

    it.each([
      [
        'an unknown role',
        { role: 'OWNER' },
        { role: 'Invalid option: expected one of "ADMIN"|"MEMBER"' },
        { role: 'invalid_value' },
      ],
      ['no role', {}, { role: 'Required' }, { role: 'required' }],
      [
        'an unknown field',
        { role: 'ADMIN', email: 'x@example.com' },
        { email: 'Unknown field' },
        { email: 'unknown_field' },
      ],
    ])('answers 400 for %s, naming the field', async (_case, body, fieldErrors, fieldCodes) => {
      const { org, member } = await orgWithMember();
      const res = await setRole(org.id, member.id, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        title: 'ValidationError',
        detail: `Request body is invalid: ${Object.keys(fieldErrors).join(', ')}`,
        code: 'validation_failed',
        fieldErrors,
        fieldCodes,
      });
      expect(await roleOf(org.id, member.id)).toBe('MEMBER');
    });

    it('answers 401 without credentials', async () => {
      const res = await bridge.request('PATCH', `${base(UNKNOWN_ORG)}/${UNKNOWN_MEMBER}`, {
        body: { role: 'ADMIN' },
      });
      expect(res.status).toBe(401);
      expect(res.body.error.title).toBe('Unauthorized');
    });

    it('takes the ADMIN actions from a demoted session on its next request', async () => {
      const { org } = await orgWithMember();
      const session = await kitSignIn(bridge, org, { role: 'ADMIN' });
      const add = (token: string) =>
        bridge.request('POST', base(org.id), {
          key: token,
          body: { email: `x-${Date.now()}@example.com`, role: 'MEMBER' },
        });
      expect((await add(session.sessionToken)).status).toBe(201);
      expect((await setRole(org.id, session.member.id, { role: 'MEMBER' })).status).toBe(200);
      const after = await add(session.sessionToken);
      expect(after.status).toBe(403);
      expect(after.body.error).toEqual(ADMIN_ONLY);
    });
  });

  describe('DELETE …/members/{id}', () => {
    it('removes a member, answers its record and keeps its user', async () => {
      const { org, user, member } = await orgWithMember();
      const res = await remove(org.id, member.id);
      expect(res.status).toBe(200);
      expect(dataOf(Member).parse(res.body).data).toEqual(member);
      const gone = await bridge.request('GET', `${base(org.id)}/${member.id}`, { key: admin.key });
      expect(gone.status).toBe(404);
      expect((await remove(org.id, member.id)).status).toBe(404);
      const access = await bridge.request('GET', `/api/public/organizations/${org.id}`, {
        key: user.key,
      });
      expect(access.status).toBe(404);
      const row = await bridge.deps.store.db
        .selectFrom('users')
        .select('id')
        .where('id', '=', user.userId)
        .executeTakeFirst();
      expect(row?.id).toBe(user.userId);
    });

    it('lets a MEMBER remove itself with its API key', async () => {
      const { org, user, member } = await orgWithMember();
      const res = await remove(org.id, member.id, user.key);
      expect(res.status).toBe(200);
      expect(res.body.data.id).toBe(member.id);
    });

    it('lets a member remove itself with its own session, which then ends', async () => {
      const { org } = await orgWithMember();
      const session = await kitSignIn(bridge, org);
      const res = await remove(org.id, session.member.id, session.sessionToken);
      expect(res.status).toBe(200);
      const after = await bridge.request('GET', '/api/sso/session', { key: session.sessionToken });
      expect(after.status).toBe(401);
      expect(after.body.error.title).toBe('Unauthorized');
    });

    it('ends the sessions of a removed member on their next request', async () => {
      const { org } = await orgWithMember();
      const session = await kitSignIn(bridge, org, { role: 'ADMIN' });
      expect((await remove(org.id, session.member.id)).status).toBe(200);
      const res = await bridge.request('GET', `/api/public/organizations/${org.id}`, {
        key: session.sessionToken,
      });
      expect(res.status).toBe(401);
      expect(res.body.error).toEqual({
        title: 'Unauthorized',
        detail: 'Missing, invalid, revoked or expired credentials',
        code: 'invalid_credentials',
      });
    });

    it('refuses to renew the session of a removed member, which a renewal just before kept', async () => {
      const { org } = await orgWithMember();
      const session = await kitSignIn(bridge, org, { role: 'ADMIN' });
      const refresh = () =>
        bridge.request('POST', '/api/sso/session/refresh', { key: session.sessionToken });
      expect((await refresh()).status).toBe(200);
      expect((await remove(org.id, session.member.id)).status).toBe(200);
      const res = await refresh();
      expect(res.status).toBe(401);
      expect(res.body.error).toEqual({
        title: 'Unauthorized',
        detail: 'Missing, invalid, revoked or expired credentials',
        code: 'invalid_credentials',
      });
    });

    it('answers 403 to a MEMBER removing someone else', async () => {
      const { org, adminMember } = await orgWithMember();
      const other = await orgWithMember();
      const { user } = other;
      await bridge.request('POST', base(org.id), {
        key: admin.key,
        body: { email: user.email, role: 'MEMBER' },
      });
      const res = await remove(org.id, adminMember.id, user.key);
      expect(res.status).toBe(403);
      expect(res.body.error).toEqual({
        title: 'Forbidden',
        detail: 'Only an ADMIN of the organization can remove another member',
        code: 'admin_required',
      });
      expect(await roleOf(org.id, adminMember.id)).toBe('ADMIN');
    });

    it('answers 409 for removing the last ADMIN, by itself or anyone', async () => {
      const { org, adminMember } = await orgWithMember();
      const res = await remove(org.id, adminMember.id);
      expect(res.status).toBe(409);
      expect(res.body.error).toEqual(LAST_ADMIN_REMOVED);
      expect(await roleOf(org.id, adminMember.id)).toBe('ADMIN');
    });

    it("answers 404 for an unknown member and for another organization's member", async () => {
      const { org } = await orgWithMember();
      const other = await orgWithMember();
      for (const id of [UNKNOWN_MEMBER, other.member.id]) {
        const res = await remove(org.id, id);
        expect(res.status).toBe(404);
        expect(res.body.error).toEqual(MEMBER_NOT_FOUND);
      }
    });

    it('answers 404 to a non-member, the same body as an unknown organization', async () => {
      const { org, member } = await orgWithMember();
      const unknown = await remove(UNKNOWN_ORG, member.id, stranger.key);
      const res = await remove(org.id, member.id, stranger.key);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(unknown.body);
    });

    it('answers 401 without credentials', async () => {
      const res = await bridge.request('DELETE', `${base(UNKNOWN_ORG)}/${UNKNOWN_MEMBER}`);
      expect(res.status).toBe(401);
      expect(res.body.error.title).toBe('Unauthorized');
    });
  });

  describe('the last ADMIN under concurrency', () => {
    /** An organization with exactly two ADMINs: `admin` and a second user with a key. */
    async function twoAdmins() {
      const { org, user, member, adminMember } = await orgWithMember();
      await setRole(org.id, member.id, { role: 'ADMIN' });
      return {
        org,
        a: { key: admin.key, id: adminMember.id },
        b: { key: user.key, id: member.id },
      };
    }

    const admins = async (orgId: string) =>
      (
        await bridge.request('GET', `${base(orgId)}?limit=100`, { key: admin.key })
      ).body.data.filter((m: Member) => m.role === 'ADMIN').length;

    it('lets one of two concurrent demotions of the last two ADMINs through', async () => {
      for (let round = 0; round < 4; round++) {
        const { org, a, b } = await twoAdmins();
        const results = await Promise.all([
          setRole(org.id, a.id, { role: 'MEMBER' }, b.key),
          setRole(org.id, b.id, { role: 'MEMBER' }, a.key),
        ]);
        const statuses = results.map((r) => r.status).sort();
        // The first demotion wins; the loser is refused as the last ADMIN (409), or, demoted
        // already when its request is authorized, as a MEMBER (403).
        expect(statuses[0]).toBe(200);
        expect([403, 409]).toContain(statuses[1]);
        expect(await admins(org.id)).toBe(1);
      }
    });

    it('lets one of two concurrent self-demotions of the last two ADMINs through', async () => {
      for (let round = 0; round < 4; round++) {
        const { org, a, b } = await twoAdmins();
        const results = await Promise.all([
          setRole(org.id, a.id, { role: 'MEMBER' }, a.key),
          setRole(org.id, b.id, { role: 'MEMBER' }, b.key),
        ]);
        expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
        expect(results.find((r) => r.status === 409)?.body.error).toEqual(LAST_ADMIN_DEMOTED);
        expect(await admins(org.id)).toBe(1);
      }
    });

    it('lets one of two concurrent self-removals of the last two ADMINs through', async () => {
      for (let round = 0; round < 4; round++) {
        const { org, a, b } = await twoAdmins();
        const results = await Promise.all([
          remove(org.id, a.id, a.key),
          remove(org.id, b.id, b.key),
        ]);
        expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
        expect(results.find((r) => r.status === 409)?.body.error).toEqual(LAST_ADMIN_REMOVED);
        const left = await bridge.deps.store.db
          .selectFrom('members')
          .select('role')
          .where('organizationId', '=', org.id)
          .where('role', '=', 'ADMIN')
          .execute();
        expect(left).toHaveLength(1);
      }
    });
  });
});
