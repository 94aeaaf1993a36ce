import { sql } from 'kysely';
import type { Db } from './db';
import { precompiled } from './precompiled';
import type { MembersTable } from './schema';
import { ensureUser, type NewUser } from './users';

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

/**
 * Makes the user with `user.email` a member of the organization, in one transaction: the user
 * is created unless the email exists, the membership unless the user has one there. `onAdded`
 * runs in the transaction only when this call created the membership (the outbox event of the
 * change goes there, so it exists exactly when the membership does). Undefined, with no
 * membership written, when the organization does not exist. Safe when calls for one email race:
 * one creates, the others find what it created.
 */
export function addMembership(
  db: Db,
  user: NewUser,
  member: NewMembership,
  onAdded?: (tx: Db, added: MemberWithGroups) => Promise<void>,
): Promise<{ member: MemberWithGroups; created: boolean } | undefined> {
  return db.transaction().execute(async (tx) => {
    const { user: row } = await ensureUser(tx, user);
    // Into an organization that exists, or nothing (rather than a foreign-key error).
    const inserted = await tx
      .insertInto('members')
      .columns(['id', 'organizationId', 'userId', 'role', 'groups', 'createdAt'])
      .expression(
        tx
          .selectFrom('organizations')
          .select([
            sql<string>`cast(${member.id} as text)`.as('id'),
            'id as organizationId',
            sql<string>`cast(${row.id} as text)`.as('userId'),
            sql<string>`cast(${member.role} as text)`.as('role'),
            sql<string | null>`cast(${member.groups} as text)`.as('groups'),
            sql<string>`cast(${member.createdAt} as text)`.as('createdAt'),
          ])
          .where('id', '=', member.organizationId),
      )
      .onConflict((oc) => oc.columns(['organizationId', 'userId']).doNothing())
      .returning('id')
      .execute();
    const found = await withUser(tx)
      .select('m.groups')
      .where('m.organizationId', '=', member.organizationId)
      .where('m.userId', '=', row.id)
      .executeTakeFirst();
    if (!found) return undefined;
    const created = inserted.length > 0;
    if (created) await onAdded?.(tx, found);
    return { member: found, created };
  });
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
 * members the organization has (test/store-plans.test.ts pins the plan).
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
