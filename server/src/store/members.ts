import type { Db } from './db';
import { precompiled } from './precompiled';
import type { MembersTable } from './schema';

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
): Promise<(MemberWithUser & { groups: string | null }) | undefined> =>
  (await byEmail(db, orgId, email))[0];

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
