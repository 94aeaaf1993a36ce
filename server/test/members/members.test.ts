import { ErrorBody, Member, pageOf, User } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';
import { findUserByEmail } from '../../src/store/users';

const MEMBER_FIELDS = ['createdAt', 'id', 'organizationId', 'role', 'user', 'userId'];
const USER_FIELDS = [
  'avatarUrl',
  'createdAt',
  'email',
  'firstName',
  'fullName',
  'id',
  'isEmailVerified',
  'title',
];
const UNKNOWN_ORG = 'org_00000000000000000000000000';

describe.each(ENGINES)('members on %s', (engine) => {
  let bridge: TestBridge;
  let admin: { key: string; userId: string; email: string };
  let memberUser: { key: string; userId: string; email: string };
  let stranger: { key: string; userId: string; email: string };
  let orgId: string;
  let otherOrgId: string;
  /** The MEMBER row of memberUser in orgId. */
  let member: Member;
  /** The ADMIN row of the stranger in otherOrgId. */
  let otherOrgMember: Member;

  beforeAll(async () => {
    bridge = await startBridge(engine);
    admin = await bridge.newUser();
    stranger = await bridge.newUser();
    const org = await bridge.request('POST', '/api/public/organizations', {
      key: admin.key,
      body: { name: 'Members Org' },
    });
    orgId = org.body.data.id;
    const added = await bridge.request('POST', `/api/public/organizations/${orgId}/members`, {
      key: admin.key,
      body: { email: `member-${engine}@example.com`, role: 'MEMBER' },
    });
    member = added.body.data;
    memberUser = await bridge.newUser(`member-${engine}@example.com`);
    const other = await bridge.request('POST', '/api/public/organizations', {
      key: stranger.key,
      body: { name: 'Stranger Org' },
    });
    otherOrgId = other.body.data.id;
    const otherList = await bridge.request(
      'GET',
      `/api/public/organizations/${otherOrgId}/members`,
      { key: stranger.key },
    );
    otherOrgMember = otherList.body.data[0];
  });
  afterAll(() => bridge.stop());

  describe('list', () => {
    it('lists the members with every field of the contract', async () => {
      const res = await bridge.request('GET', `/api/public/organizations/${orgId}/members`, {
        key: admin.key,
      });
      expect(res.status).toBe(200);
      const page = pageOf(Member).parse(res.body);
      for (const item of res.body.data) {
        expect(Object.keys(item).sort()).toEqual(MEMBER_FIELDS);
        expect(Object.keys(item.user).sort()).toEqual(USER_FIELDS);
      }
      const adminRow = page.data.find((m) => m.userId === admin.userId);
      expect(adminRow).toMatchObject({ role: 'ADMIN', organizationId: orgId });
      expect(adminRow?.user).toMatchObject({ id: admin.userId, email: admin.email });
      expect(page.data.find((m) => m.id === member.id)).toEqual(member);
    });

    it('lets a MEMBER list the members', async () => {
      const res = await bridge.request('GET', `/api/public/organizations/${orgId}/members`, {
        key: memberUser.key,
      });
      expect(res.status).toBe(200);
      expect(
        pageOf(Member)
          .parse(res.body)
          .data.map((m) => m.userId),
      ).toContain(memberUser.userId);
    });

    it('lists only the members of the addressed organization', async () => {
      const res = await bridge.request('GET', `/api/public/organizations/${otherOrgId}/members`, {
        key: stranger.key,
      });
      expect(res.status).toBe(200);
      expect(
        pageOf(Member)
          .parse(res.body)
          .data.map((m) => m.organizationId),
      ).toEqual([otherOrgId]);
    });
  });

  describe('add', () => {
    it('adds a member (201) with every field of the contract', async () => {
      const res = await bridge.request('POST', `/api/public/organizations/${orgId}/members`, {
        key: admin.key,
        body: { email: 'brand-new@example.com', role: 'MEMBER' },
      });
      expect(res.status).toBe(201);
      const added = Member.parse(res.body.data);
      expect(Object.keys(res.body.data).sort()).toEqual(MEMBER_FIELDS);
      expect(Object.keys(res.body.data.user).sort()).toEqual(USER_FIELDS);
      expect(added.id).toMatch(/^mem_/);
      expect(added.organizationId).toBe(orgId);
      expect(added.role).toBe('MEMBER');
      expect(added.userId).toBe(added.user.id);
      expect(added.user.email).toBe('brand-new@example.com');
    });

    it('creates the user when the email is new', async () => {
      const res = await bridge.request('POST', `/api/public/organizations/${orgId}/members`, {
        key: admin.key,
        body: { email: 'never-seen@example.com', role: 'MEMBER' },
      });
      expect(res.status).toBe(201);
      const user = User.parse(res.body.data.user);
      expect(user.id).toMatch(/^usr_/);
      expect(user).toMatchObject({
        fullName: null,
        firstName: null,
        title: null,
        avatarUrl: null,
        isEmailVerified: false,
      });
      const row = await findUserByEmail(bridge.deps.store.db, 'never-seen@example.com');
      expect(row?.id).toBe(user.id);
    });

    it('reuses the existing user when the email is known', async () => {
      const known = await bridge.newUser();
      const res = await bridge.request('POST', `/api/public/organizations/${orgId}/members`, {
        key: admin.key,
        body: { email: known.email, role: 'ADMIN' },
      });
      expect(res.status).toBe(201);
      expect(res.body.data.userId).toBe(known.userId);
      expect(res.body.data.role).toBe('ADMIN');
    });

    it('lowercases the email', async () => {
      const res = await bridge.request('POST', `/api/public/organizations/${orgId}/members`, {
        key: admin.key,
        body: { email: 'Mixed.Case@Example.COM', role: 'MEMBER' },
      });
      expect(res.status).toBe(201);
      expect(res.body.data.user.email).toBe('mixed.case@example.com');
    });

    it('gives the added member access to the organization', async () => {
      const added = await bridge.request('POST', `/api/public/organizations/${orgId}/members`, {
        key: admin.key,
        body: { email: 'gets-access@example.com', role: 'MEMBER' },
      });
      const newcomer = await bridge.newUser('gets-access@example.com');
      expect(newcomer.userId).toBe(added.body.data.userId);
      const res = await bridge.request('GET', `/api/public/organizations/${orgId}`, {
        key: newcomer.key,
      });
      expect(res.status).toBe(200);
    });

    it('answers 409 Conflict for someone who is already a member', async () => {
      const res = await bridge.request('POST', `/api/public/organizations/${orgId}/members`, {
        key: admin.key,
        body: { email: memberUser.email, role: 'ADMIN' },
      });
      expect(res.status).toBe(409);
      expect(ErrorBody.parse(res.body).error.title).toBe('Conflict');
      expect(res.body.error.code).toBe('already_member');
      expect(res.body.error.fieldCodes).toEqual({ email: 'already_member' });
    });

    it('answers 409 for an existing member written in another case', async () => {
      const res = await bridge.request('POST', `/api/public/organizations/${orgId}/members`, {
        key: admin.key,
        body: { email: memberUser.email.toUpperCase(), role: 'MEMBER' },
      });
      expect(res.status).toBe(409);
    });

    it('keeps the role of an existing member on a 409', async () => {
      await bridge.request('POST', `/api/public/organizations/${orgId}/members`, {
        key: admin.key,
        body: { email: memberUser.email, role: 'ADMIN' },
      });
      const res = await bridge.request(
        'GET',
        `/api/public/organizations/${orgId}/members/${member.id}`,
        { key: admin.key },
      );
      expect(res.body.data.role).toBe('MEMBER');
    });

    it('lets exactly one of concurrent adds of one email succeed', async () => {
      const results = await Promise.all(
        Array.from({ length: 5 }, () =>
          bridge.request('POST', `/api/public/organizations/${orgId}/members`, {
            key: admin.key,
            body: { email: 'raced@example.com', role: 'MEMBER' },
          }),
        ),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    });

    it('answers 403 Forbidden when a MEMBER adds someone', async () => {
      const res = await bridge.request('POST', `/api/public/organizations/${orgId}/members`, {
        key: memberUser.key,
        body: { email: 'not-added@example.com', role: 'MEMBER' },
      });
      expect(res.status).toBe(403);
      expect(ErrorBody.parse(res.body).error.title).toBe('Forbidden');
      expect(res.body.error.code).toBe('admin_required');
    });

    it('adds nobody when a MEMBER tries', async () => {
      await bridge.request('POST', `/api/public/organizations/${orgId}/members`, {
        key: memberUser.key,
        body: { email: 'also-not-added@example.com', role: 'MEMBER' },
      });
      const list = await bridge.request(
        'GET',
        `/api/public/organizations/${orgId}/members?limit=100`,
        { key: admin.key },
      );
      expect(list.body.data.map((m: Member) => m.user.email)).not.toContain(
        'also-not-added@example.com',
      );
    });

    it.each([
      ['not an email', 'nope', 'invalid_format'],
      ['no domain', 'a@', 'invalid_format'],
      ['empty', '', 'invalid_format'],
    ])('rejects an invalid email (%s) with fieldErrors.email', async (_case, email, code) => {
      const res = await bridge.request('POST', `/api/public/organizations/${orgId}/members`, {
        key: admin.key,
        body: { email, role: 'MEMBER' },
      });
      expect(res.status).toBe(400);
      expect(ErrorBody.parse(res.body).error.title).toBe('ValidationError');
      expect(Object.keys(res.body.error.fieldErrors)).toEqual(['email']);
      expect(res.body.error.fieldCodes).toEqual({ email: code });
    });

    it.each([
      ['unknown value', 'OWNER'],
      ['lowercase', 'member'],
    ])('rejects an invalid role (%s) with fieldErrors.role', async (_case, role) => {
      const res = await bridge.request('POST', `/api/public/organizations/${orgId}/members`, {
        key: admin.key,
        body: { email: 'role-check@example.com', role },
      });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.fieldErrors)).toEqual(['role']);
    });

    it('requires a role', async () => {
      const res = await bridge.request('POST', `/api/public/organizations/${orgId}/members`, {
        key: admin.key,
        body: { email: 'no-role@example.com' },
      });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.fieldErrors)).toEqual(['role']);
    });

    it('rejects an unknown field with fieldErrors naming it', async () => {
      const res = await bridge.request('POST', `/api/public/organizations/${orgId}/members`, {
        key: admin.key,
        body: { email: 'extra@example.com', role: 'MEMBER', fullName: 'Extra' },
      });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.fieldErrors)).toEqual(['fullName']);
    });
  });

  describe('get', () => {
    it('gets one member with every field of the contract', async () => {
      const res = await bridge.request(
        'GET',
        `/api/public/organizations/${orgId}/members/${member.id}`,
        { key: admin.key },
      );
      expect(res.status).toBe(200);
      const got = Member.parse(res.body.data);
      expect(Object.keys(res.body.data).sort()).toEqual(MEMBER_FIELDS);
      expect(Object.keys(res.body.data.user).sort()).toEqual(USER_FIELDS);
      expect(got).toEqual(member);
      expect(got.userId).toBe(memberUser.userId);
    });

    it('lets a MEMBER get a member', async () => {
      const res = await bridge.request(
        'GET',
        `/api/public/organizations/${orgId}/members/${member.id}`,
        { key: memberUser.key },
      );
      expect(res.status).toBe(200);
      expect(Member.parse(res.body.data).id).toBe(member.id);
    });

    it("answers 404 for another organization's member id", async () => {
      const res = await bridge.request(
        'GET',
        `/api/public/organizations/${orgId}/members/${otherOrgMember.id}`,
        { key: admin.key },
      );
      expect(res.status).toBe(404);
      expect(ErrorBody.parse(res.body).error.title).toBe('NotFound');
      expect(res.body.error.code).toBe('member_not_found');
    });

    it('answers 404 for an unknown member id', async () => {
      const res = await bridge.request(
        'GET',
        `/api/public/organizations/${orgId}/members/mem_00000000000000000000000000`,
        { key: admin.key },
      );
      expect(res.status).toBe(404);
      expect(ErrorBody.parse(res.body).error.title).toBe('NotFound');
      expect(res.body.error.code).toBe('member_not_found');
    });
  });

  describe('a non-member', () => {
    it('gets 404 for the organization, the same body as an unknown id', async () => {
      const unknown = await bridge.request('GET', `/api/public/organizations/${UNKNOWN_ORG}`, {
        key: stranger.key,
      });
      const res = await bridge.request('GET', `/api/public/organizations/${orgId}`, {
        key: stranger.key,
      });
      expect(res.status).toBe(404);
      expect(ErrorBody.parse(res.body).error.title).toBe('NotFound');
      expect(res.body.error.code).toBe('organization_not_found');
      expect(res.body).toEqual(unknown.body);
    });

    it('gets 404 for its member list, the same body as an unknown id', async () => {
      const unknown = await bridge.request(
        'GET',
        `/api/public/organizations/${UNKNOWN_ORG}/members`,
        { key: stranger.key },
      );
      const res = await bridge.request('GET', `/api/public/organizations/${orgId}/members`, {
        key: stranger.key,
      });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(unknown.body);
    });

    it('gets 404 for one of its members, the same body as an unknown id', async () => {
      const unknown = await bridge.request(
        'GET',
        `/api/public/organizations/${UNKNOWN_ORG}/members/${member.id}`,
        { key: stranger.key },
      );
      const res = await bridge.request(
        'GET',
        `/api/public/organizations/${orgId}/members/${member.id}`,
        { key: stranger.key },
      );
      expect(res.status).toBe(404);
      expect(res.body).toEqual(unknown.body);
    });

    it('gets 404 when adding a member, the same body as an unknown id', async () => {
      const unknown = await bridge.request(
        'POST',
        `/api/public/organizations/${UNKNOWN_ORG}/members`,
        { key: stranger.key, body: { email: 'intruder@example.com', role: 'ADMIN' } },
      );
      const res = await bridge.request('POST', `/api/public/organizations/${orgId}/members`, {
        key: stranger.key,
        body: { email: 'intruder@example.com', role: 'ADMIN' },
      });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(unknown.body);
    });

    it('adds nobody when trying to add a member', async () => {
      await bridge.request('POST', `/api/public/organizations/${orgId}/members`, {
        key: stranger.key,
        body: { email: stranger.email, role: 'ADMIN' },
      });
      const res = await bridge.request('GET', `/api/public/organizations/${orgId}`, {
        key: stranger.key,
      });
      expect(res.status).toBe(404);
    });

    it('does not see the organization in its list', async () => {
      const res = await bridge.request('GET', '/api/public/organizations', { key: stranger.key });
      expect(res.status).toBe(200);
      expect(res.body.data.map((o: { id: string }) => o.id)).not.toContain(orgId);
    });
  });
});
