import { sql } from 'kysely';
import { runTagged } from './cache-tags';
import type { Db } from './db';
import { precompiled } from './precompiled';
import type { MembersTable } from './schema';
import { insertUsersUnlessKnown, type NewUser } from './users';

export type MemberRow = MembersTable;

export interface MemberWithUser {
  id: string;
  organizationId: string;
  userId: string;
  role: string;
  createdAt: string;
  userEmail: string;
  userFullName: string | null;
  userFirstName: string | null;
  userLastName: string | null;
  userTitle: string | null;
  userAvatarUrl: string | null;
  userIsEmailVerified: number;
  userCreatedAt: string;
}

/** A membership's user, as MemberWithUser names its columns (users joined as `u`). */
export const MEMBER_USER_COLUMNS = [
  'u.email as userEmail',
  'u.fullName as userFullName',
  'u.firstName as userFirstName',
  'u.lastName as userLastName',
  'u.title as userTitle',
  'u.avatarUrl as userAvatarUrl',
  'u.isEmailVerified as userIsEmailVerified',
  'u.createdAt as userCreatedAt',
] as const;

const withUser = (db: Db) =>
  db
    .selectFrom('members as m')
    .innerJoin('users as u', 'u.id', 'm.userId')
    .select([
      'm.id',
      'm.organizationId',
      'm.userId',
      'm.role',
      'm.createdAt',
      ...MEMBER_USER_COLUMNS,
    ]);

export const insertMember = (db: Db, member: MemberRow) =>
  db.insertInto('members').values(member).execute();

export type MemberWithGroups = MemberWithUser & { groups: string | null };

/** A membership added by addMembership: its role, groups and creation time. */
export interface NewMembership {
  id: string;
  organizationId: string;
  role: string;
  groups: string | null;
  createdAt: string;
}

/** One membership for addMemberships: the user by email, and `onAdded` (see there). */
export interface MembershipRequest {
  user: NewUser;
  member: NewMembership;
  onAdded?: ((tx: Db, added: MemberWithGroups) => Promise<void>) | undefined;
}

const pairKey = (orgId: string, email: string) => `${orgId}\u0000${email}`;

/**
 * Makes each user (by `user.email`) a member of its organization, all in one transaction: a
 * user is created unless the email exists, a membership unless the user has one there. Each
 * request's `onAdded` runs in the transaction only when this call created its membership, and
 * `onAllAdded` then with every membership created (the outbox events of the change go there,
 * so they exist exactly when the memberships do). Each
 * answer is undefined, with no membership written, when its organization does not exist. Safe
 * when calls for one email race: one creates, the others find what it created.
 */
export function addMemberships(
  db: Db,
  requests: readonly MembershipRequest[],
  onAllAdded?: (tx: Db, added: MemberWithGroups[]) => Promise<void>,
): Promise<({ member: MemberWithGroups; created: boolean } | undefined)[]> {
  return db.transaction().execute(async (tx) => {
    await insertUsersUnlessKnown(
      tx,
      requests.map((r) => r.user),
    );
    // Into organizations that exist, or nothing (rather than a foreign-key error); `where` also
    // tells SQLite's parser that `on conflict` is the upsert's. In (organization, email) order,
    // as the users.
    const wanted = [...requests]
      .sort((a, b) => {
        const x = pairKey(a.member.organizationId, a.user.email);
        const y = pairKey(b.member.organizationId, b.user.email);
        return x < y ? -1 : x > y ? 1 : 0;
      })
      .map(
        ({ user, member: m }) => sql`(cast(${m.id} as text), cast(${m.organizationId} as text),
          cast(${user.email} as text), cast(${m.role} as text), cast(${m.groups} as text),
          cast(${m.createdAt} as text))`,
      );
    const inserted = await runTagged(
      tx,
      sql<{ id: string }>`insert into members (id, organization_id, user_id,
      role, groups, created_at)
      select v.column1, o.id, u.id, v.column4, v.column5, v.column6
      from (values ${sql.join(wanted)}) v, organizations o, users u
      where o.id = v.column2 and u.email = v.column3
      on conflict (organization_id, user_id) do nothing returning id`,
      ['members'],
    );
    const created = new Set(inserted.rows.map((r) => r.id));
    // From the users of these emails to their memberships (`cross join` keeps that order on
    // SQLite; PostgreSQL plans it as a join): starting from the organization's members instead,
    // as SQLite's planner otherwise may, costs as much as the organization is large.
    const emails = sql.join([...new Set(requests.map((r) => r.user.email))]);
    const orgs = sql.join([...new Set(requests.map((r) => r.member.organizationId))]);
    const { rows } = await runTagged(
      tx,
      sql<MemberWithGroups>`select m.id, m.organization_id, m.user_id,
      m.role, m.groups, m.created_at, u.email as user_email, u.full_name as user_full_name,
      u.first_name as user_first_name, u.last_name as user_last_name, u.title as user_title,
      u.avatar_url as user_avatar_url, u.is_email_verified as user_is_email_verified,
      u.created_at as user_created_at
      from users u cross join members m
      where u.email in (${emails}) and m.user_id = u.id and m.organization_id in (${orgs})`,
      ['users', 'members'],
    );
    const found = new Map(rows.map((m) => [pairKey(m.organizationId, m.userEmail), m]));
    const answers = [];
    const added: MemberWithGroups[] = [];
    for (const { user, member, onAdded } of requests) {
      const row = found.get(pairKey(member.organizationId, user.email));
      const isNew = created.has(member.id);
      if (row && isNew) {
        await onAdded?.(tx, row);
        added.push(row);
      }
      answers.push(row && { member: row, created: isNew });
    }
    await onAllAdded?.(tx, added);
    return answers;
  });
}

/** addMemberships for one membership. */
export async function addMembership(
  db: Db,
  user: NewUser,
  member: NewMembership,
  onAdded?: MembershipRequest['onAdded'],
): Promise<{ member: MemberWithGroups; created: boolean } | undefined> {
  return (await addMemberships(db, [{ user, member, onAdded }]))[0];
}

/**
 * Sets a member's user names and, when given, the membership's groups (what a sign-in's
 * claims say), in one transaction.
 */
export function updateSignInDetails(
  db: Db,
  member: { organizationId: string; userId: string },
  names: { firstName: string | null; lastName: string | null; fullName: string | null },
  groups: string | null,
): Promise<void> {
  return db.transaction().execute(async (tx) => {
    await tx.updateTable('users').set(names).where('id', '=', member.userId).execute();
    if (groups === null) return;
    await tx
      .updateTable('members')
      .set({ groups })
      .where('organizationId', '=', member.organizationId)
      .where('userId', '=', member.userId)
      .execute();
  });
}

export const findMember = (
  db: Db,
  orgId: string,
  memberId: string,
): Promise<MemberWithUser | undefined> =>
  withUser(db)
    .where('m.organizationId', '=', orgId)
    .where('m.id', '=', memberId)
    .executeTakeFirst();

export const findMemberByUser = (
  db: Db,
  orgId: string,
  userId: string,
): Promise<MemberWithUser | undefined> =>
  withUser(db)
    .where('m.organizationId', '=', orgId)
    .where('m.userId', '=', userId)
    .executeTakeFirst();

/**
 * The query behind findMemberByEmail (every SSO exchange): the user by the unique email, then
 * the membership by (organization_id, user_id): two unique lookups however many users or
 * members the organization has (server/test/store/plans.test.ts pins the plan).
 */
export const memberByEmailQuery = (db: Db, orgId: string, email: string) =>
  withUser(db)
    .select('m.groups')
    .where('m.organizationId', '=', orgId)
    .where('u.email', '=', email);
const byEmail = precompiled(memberByEmailQuery);
/** The membership of the user with this (normalized) email, with its stored groups. */
export const findMemberByEmail = async (
  db: Db,
  orgId: string,
  email: string,
): Promise<MemberWithGroups | undefined> => (await byEmail(db, orgId, email))[0];

export function listMembers(
  db: Db,
  orgId: string,
  page: { cursor?: string | undefined; limit: number },
): Promise<MemberWithUser[]> {
  let q = withUser(db).where('m.organizationId', '=', orgId);
  if (page.cursor) q = q.where('m.id', '>', page.cursor);
  return q
    .orderBy('m.id')
    .limit(page.limit + 1)
    .execute();
}

/** How many ADMINs the organization has (inside a transaction that locked it, to act on it). */
export async function countAdmins(db: Db, orgId: string): Promise<number> {
  const row = await db
    .selectFrom('members')
    .select(({ fn }) => fn.countAll<number | string>().as('admins'))
    .where('organizationId', '=', orgId)
    .where('role', '=', 'ADMIN')
    .executeTakeFirstOrThrow();
  return Number(row.admins);
}

export const updateMemberRole = (db: Db, orgId: string, memberId: string, role: string) =>
  db
    .updateTable('members')
    .set({ role })
    .where('organizationId', '=', orgId)
    .where('id', '=', memberId)
    .executeTakeFirst();

export const deleteMemberRow = (db: Db, orgId: string, memberId: string) =>
  db
    .deleteFrom('members')
    .where('organizationId', '=', orgId)
    .where('id', '=', memberId)
    .executeTakeFirst();

/**
 * The host account behind an organization: the earliest member (the creator, unless removed)
 * whose user holds an API key, whatever its state. Read from the keys' side: a host has few
 * keys, an organization may have thousands of SSO members.
 */
export async function findHostUserId(db: Db, orgId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('apiKeys as k')
    .innerJoin('members as m', (join) =>
      join.onRef('m.userId', '=', 'k.userId').on('m.organizationId', '=', orgId),
    )
    .select('m.userId')
    .orderBy('m.id')
    .limit(1)
    .executeTakeFirst();
  return row?.userId;
}
