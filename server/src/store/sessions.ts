import type { Db } from './db';
import type { OrganizationWithRole } from './organizations';
import { precompiled } from './precompiled';

/**
 * The organization of a live session with the member's current role: the membership still
 * exists (same member id, so a removed and re-added member is another session) and the session
 * was not ended. Every request made with a session asks, so it is one precompiled read (on
 * SQLite usually a hit of the exact result cache).
 */
const live = precompiled((db, memberId: string, orgId: string, sessionId: string) =>
  db
    .selectFrom('members as m')
    .innerJoin('organizations as o', 'o.id', 'm.organizationId')
    .selectAll('o')
    .select('m.role')
    .where('m.id', '=', memberId)
    .where('m.organizationId', '=', orgId)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('revokedSessions as r')
            .select('r.sessionId')
            .where('r.sessionId', '=', sessionId),
        ),
      ),
    ),
);

export const findLiveSession = async (
  db: Db,
  session: { memberId: string; orgId: string; sessionId: string },
): Promise<OrganizationWithRole | undefined> =>
  (await live(db, session.memberId, session.orgId, session.sessionId))[0];

/** Ends a session everywhere; ending one twice is fine. Rows past their expiry are purged. */
export async function revokeSession(
  db: Db,
  session: { sessionId: string; orgId: string; expiresAt: string },
  now: string,
) {
  await db.deleteFrom('revokedSessions').where('expiresAt', '<', now).execute();
  await db
    .insertInto('revokedSessions')
    .values({
      sessionId: session.sessionId,
      organizationId: session.orgId,
      expiresAt: session.expiresAt,
    })
    .onConflict((oc) => oc.column('sessionId').doNothing())
    .execute();
}
