import { dataOf, SsoSession } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';
import { claimsFor, createOrg, signHs256 } from './support';

const SessionResponse = dataOf(SsoSession);

describe.each(ENGINES)('SSO just-in-time provisioning on %s', (engine) => {
  let bridge: TestBridge;
  let admin: { key: string; userId: string; email: string };
  let org: { id: string; jwtSecret: string };

  beforeAll(async () => {
    bridge = await startBridge(engine);
    admin = await bridge.newUser();
    org = await createOrg(bridge, admin.key);
  });
  afterAll(() => bridge.stop());

  async function signIn(claims: Record<string, unknown>) {
    const jwt = await signHs256(claimsFor(org.id, claims), org.jwtSecret);
    const res = await bridge.request('POST', '/api/sso/jwt', { body: { jwt } });
    if (res.status !== 200) throw new Error(`sign-in: ${res.status} ${res.text}`);
    return SessionResponse.parse(res.body).data;
  }

  const usersWithEmail = (email: string) =>
    bridge.deps.store.db.selectFrom('users').selectAll().where('email', '=', email).execute();
  const membersOf = (userId: string) =>
    bridge.deps.store.db
      .selectFrom('members')
      .selectAll()
      .where('organizationId', '=', org.id)
      .where('userId', '=', userId)
      .execute();

  it('creates the user from the claims on first use, email lowercased', async () => {
    const session = await signIn({
      email: 'Ada.Lovelace@Example.COM',
      firstName: 'Ada',
      lastName: 'Lovelace',
      role: 'ADMIN',
    });
    expect(session.member.user).toMatchObject({
      email: 'ada.lovelace@example.com',
      firstName: 'Ada',
      fullName: 'Ada Lovelace',
    });
    const users = await usersWithEmail('ada.lovelace@example.com');
    expect(users).toHaveLength(1);
    expect(users[0]).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace' });
  });

  it('creates the membership with the role of the first token', async () => {
    const session = await signIn({ email: 'first-admin@example.com', role: 'ADMIN' });
    expect(session.member.role).toBe('ADMIN');
    expect(session.member.organizationId).toBe(org.id);
    const rows = await membersOf(session.member.userId);
    expect(rows.map((r) => r.role)).toEqual(['ADMIN']);
  });

  it('makes a MEMBER when the token has no role', async () => {
    const session = await signIn({ email: 'no-role@example.com' });
    expect(session.member.role).toBe('MEMBER');
  });

  it('keeps the role when a later token names another one', async () => {
    const first = await signIn({ email: 'stays-admin@example.com', role: 'ADMIN' });
    const later = await signIn({ email: 'STAYS-ADMIN@example.com', role: 'MEMBER' });
    expect(later.member.id).toBe(first.member.id);
    expect(later.member.role).toBe('ADMIN');
    const rows = await membersOf(first.member.userId);
    expect(rows.map((r) => r.role)).toEqual(['ADMIN']);
  });

  it('does not promote a MEMBER when a later token says ADMIN', async () => {
    const first = await signIn({ email: 'stays-member@example.com', role: 'MEMBER' });
    const later = await signIn({ email: 'stays-member@example.com', role: 'ADMIN' });
    expect(later.member.id).toBe(first.member.id);
    expect(later.member.role).toBe('MEMBER');
  });

  it('stores the groups of the token on the membership', async () => {
    const session = await signIn({ email: 'grouped@example.com', groups: ['finance', 'ops'] });
    const rows = await membersOf(session.member.userId);
    expect(rows).toHaveLength(1);
    expect(JSON.parse(String(rows[0]?.groups))).toEqual(['finance', 'ops']);
  });

  it('updates firstName, lastName and fullName from every later token', async () => {
    const first = await signIn({
      email: 'renamed@example.com',
      firstName: 'Ada',
      lastName: 'Byron',
    });
    expect(first.member.user.fullName).toBe('Ada Byron');
    const later = await signIn({
      email: 'renamed@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
    });
    expect(later.member.id).toBe(first.member.id);
    expect(later.member.user).toMatchObject({ firstName: 'Ada', fullName: 'Ada Lovelace' });
    const users = await usersWithEmail('renamed@example.com');
    expect(users[0]).toMatchObject({
      firstName: 'Ada',
      lastName: 'Lovelace',
      fullName: 'Ada Lovelace',
    });
    // A token that names neither leaves the names as they are; one name alone replaces that one.
    await signIn({ email: 'renamed@example.com' });
    expect((await usersWithEmail('renamed@example.com'))[0]).toMatchObject({
      fullName: 'Ada Lovelace',
    });
    const third = await signIn({ email: 'renamed@example.com', firstName: 'Augusta' });
    expect(third.member.user.fullName).toBe('Augusta Lovelace');
  });

  it('replaces the groups when a later token has them and keeps them when it has none', async () => {
    const first = await signIn({ email: 'regrouped@example.com', groups: ['finance'] });
    await signIn({ email: 'regrouped@example.com', groups: ['ops', 'sales'] });
    expect(JSON.parse(String((await membersOf(first.member.userId))[0]?.groups))).toEqual([
      'ops',
      'sales',
    ]);
    await signIn({ email: 'regrouped@example.com' });
    expect(JSON.parse(String((await membersOf(first.member.userId))[0]?.groups))).toEqual([
      'ops',
      'sales',
    ]);
  });

  it('joins an existing user (made with an API key) without a second user row', async () => {
    const session = await signIn({ email: admin.email });
    expect(session.member.userId).toBe(admin.userId);
    // The creator is already ADMIN of the organization; the token's default MEMBER is not applied.
    expect(session.member.role).toBe('ADMIN');
    expect(await usersWithEmail(admin.email)).toHaveLength(1);
  });

  it('creates one user and one member for 20 concurrent first logins of one email', async () => {
    const email = 'race@example.com';
    const tokens = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        signHs256(
          claimsFor(org.id, { email, role: i % 2 ? 'ADMIN' : 'MEMBER', firstName: 'Race' }),
          org.jwtSecret,
        ),
      ),
    );
    const responses = await Promise.all(
      tokens.map((jwt) => bridge.request('POST', '/api/sso/jwt', { body: { jwt } })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    const memberIds = new Set(responses.map((r) => r.body.data.member.id));
    expect(memberIds.size).toBe(1);
    const users = await usersWithEmail(email);
    expect(users).toHaveLength(1);
    expect(await membersOf(users[0]!.id)).toHaveLength(1);
  });
});
