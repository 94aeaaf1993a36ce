import type { Db } from './db';
import type { UsersTable } from './schema';

export type UserRow = UsersTable;

export interface NewUser {
  id: string;
  email: string;
  fullName?: string | null | undefined;
  firstName?: string | null | undefined;
  lastName?: string | null | undefined;
  createdAt: string;
}

export const findUserByEmail = (db: Db, email: string) =>
  db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();

/** Creates the user unless the email exists; safe under concurrent calls for one email. */
export async function ensureUser(
  db: Db,
  user: NewUser,
): Promise<{ user: UserRow; created: boolean }> {
  const inserted = await db
    .insertInto('users')
    .values({
      id: user.id,
      email: user.email,
      fullName: user.fullName ?? null,
      firstName: user.firstName ?? null,
      lastName: user.lastName ?? null,
      title: null,
      avatarUrl: null,
      isEmailVerified: 0,
      createdAt: user.createdAt,
    })
    .onConflict((oc) => oc.column('email').doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return { user: inserted, created: true };
  const existing = await findUserByEmail(db, user.email);
  if (!existing) throw new Error('user vanished after a conflicting insert');
  return { user: existing, created: false };
}
