import { sql } from 'kysely';
import { runTagged } from './cache-tags';
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

/**
 * Creates each user unless a user has its email (then nothing is written for it; an email twice
 * in the list is created once), in email order so that two writers never wait on each other's
 * emails in a circle. How many were created. Safe under concurrent calls for one email: one
 * creates, the others find it there.
 */
export async function insertUsersUnlessKnown(db: Db, users: readonly NewUser[]): Promise<number> {
  const rows = [...users]
    .sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0))
    .map(
      (u) => sql`(${u.id}, ${u.email}, ${u.fullName ?? null}, ${u.firstName ?? null},
        ${u.lastName ?? null}, null, null, 0, ${u.createdAt})`,
    );
  const result = await runTagged(
    db,
    sql`insert into users (id, email, full_name, first_name, last_name, title,
    avatar_url, is_email_verified, created_at) values ${sql.join(rows)}
    on conflict (email) do nothing`,
    ['users'],
  );
  return Number(result.numAffectedRows ?? 0);
}

/** Creates the user unless the email exists; safe under concurrent calls for one email. */
export async function ensureUser(
  db: Db,
  user: NewUser,
): Promise<{ user: UserRow; created: boolean }> {
  const created = (await insertUsersUnlessKnown(db, [user])) > 0;
  const row = await findUserByEmail(db, user.email);
  if (!row) throw new Error('user vanished after its insert');
  return { user: row, created };
}
