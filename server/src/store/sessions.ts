import type { Db } from './db';
import type { OrganizationWithRole } from './organizations';
import { precompiled } from './precompiled';

/**
 * The revoked-sessions row that ends every session of `orgId` signed in up to a moment (a
 * jwtSecret rotation with `endSessions`). Its `expiresAt` is that moment plus the session
 * maximum: a session is ended by it when the session could not have lasted past it (its
 * absolute limit is no later), and the row is purged, as any other, once no such session can
 * be alive anyway.
 */
const signedInBeforeId = (orgId: string) => `signed-in-before:${orgId}`;

/**
 * The organization of a live session with the member's current role: the membership still
 * exists (same member id, so a removed and re-added member is another session) and the session
 * was not ended, neither by itself (logout) nor with every session of its organization. Every
 * request made with a session asks, so it is one precompiled read (on SQLite usually a hit of
 * the exact result cache).
 */
const live = precompiled(
  (db, memberId: string, orgId: string, sessionId: string, allId: string, endsBy: string) =>
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
              .where((eb) =>
                eb.or([
                  eb('r.sessionId', '=', sessionId),
                  eb.and([eb('r.sessionId', '=', allId), eb('r.expiresAt', '>=', endsBy)]),
                ]),
              ),
          ),
        ),
      ),
);

export interface SessionRef {
  memberId: string;
  orgId: string;
  sessionId: string;
  signedInAt: Date;
  absoluteExpiresAt: Date;
}

/**
 * The latest a session can last, to the second as its token says: its absolute limit, or its
 * sign-in plus the session maximum now, whichever comes first.
 */
function lastsUntil(session: SessionRef, maxAgeMs: number): string {
  const until = Math.min(
    session.absoluteExpiresAt.getTime(),
    session.signedInAt.getTime() + maxAgeMs,
  );
  return new Date(Math.floor(until / 1000) * 1000).toISOString();
}

export const findLiveSession = async (
  db: Db,
  session: SessionRef,
  maxAgeMs: number,
): Promise<OrganizationWithRole | undefined> =>
  (
    await live(
      db,
      session.memberId,
      session.orgId,
      session.sessionId,
      signedInBeforeId(session.orgId),
      lastsUntil(session, maxAgeMs),
    )
  )[0];

/**
 * Ends every session of the organization signed in up to `at` (to the second: one signed in
 * during that second ends too), on every instance from the next request. A later call moves
 * the moment on.
 */
export async function endSessionsSignedInBy(db: Db, orgId: string, at: Date, maxAgeMs: number) {
  const expiresAt = new Date(at.getTime() + maxAgeMs).toISOString();
  await db
    .insertInto('revokedSessions')
    .values({ sessionId: signedInBeforeId(orgId), organizationId: orgId, expiresAt })
    .onConflict((oc) => oc.column('sessionId').doUpdateSet({ expiresAt }))
    .execute();
}

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
