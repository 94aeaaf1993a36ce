import { sql } from 'kysely';
import type { Db } from './db';
import type { EmbedHandoffsTable } from './schema';

export type EmbedHandoffRow = EmbedHandoffsTable;

/** How long a used or expired code is kept, so a late replay is still recognised as one. */
const KEEP_AFTER_EXPIRY_MS = 15 * 60_000;

/** Stores a new code's hash; rows long past their expiry go at the same time. */
export async function insertHandoff(
  db: Db,
  row: Omit<EmbedHandoffRow, 'usedAt' | 'sessionId' | 'replayedAt'>,
  now: Date,
) {
  const stale = new Date(now.getTime() - KEEP_AFTER_EXPIRY_MS).toISOString();
  await db.deleteFrom('embedHandoffs').where('expiresAt', '<', stale).execute();
  await db
    .insertInto('embedHandoffs')
    .values({ ...row, usedAt: null, sessionId: null, replayedAt: null })
    .execute();
}

export type Redemption =
  | { status: 'redeemed'; row: EmbedHandoffRow }
  | { status: 'used'; row: EmbedHandoffRow }
  | { status: 'unknown' };

/**
 * Marks the code used, once: one conditional UPDATE, so of any number of concurrent
 * redemptions on any number of instances exactly one wins. An expired or unknown code is
 * `unknown`; a code already redeemed is `used`, and marked replayed, in one UPDATE too, with
 * the session its redemption started if it has recorded one yet (see recordHandoffSession).
 */
export async function redeemHandoff(db: Db, codeHash: string, now: Date): Promise<Redemption> {
  const at = now.toISOString();
  const won = await db
    .updateTable('embedHandoffs')
    .set({ usedAt: at })
    .where('codeHash', '=', codeHash)
    .where('usedAt', 'is', null)
    .where('expiresAt', '>', at)
    .returningAll()
    .executeTakeFirst();
  if (won) return { status: 'redeemed', row: won };
  const replayed = await db
    .updateTable('embedHandoffs')
    .set({ replayedAt: sql<string>`coalesce(replayed_at, ${at})` })
    .where('codeHash', '=', codeHash)
    .where('usedAt', 'is not', null)
    .returningAll()
    .executeTakeFirst();
  return replayed ? { status: 'used', row: replayed } : { status: 'unknown' };
}

/**
 * Records the session a redemption started, so a replay of the code can end it. False when the
 * code was presented again before this (the replay found no session to end): the caller must
 * end the session itself. Both writes take the row in turn, so one of them always sees the
 * other's.
 */
export async function recordHandoffSession(
  db: Db,
  codeHash: string,
  sessionId: string,
): Promise<boolean> {
  const row = await db
    .updateTable('embedHandoffs')
    .set({ sessionId })
    .where('codeHash', '=', codeHash)
    .returning('replayedAt')
    .executeTakeFirst();
  return row !== undefined && row.replayedAt === null;
}
