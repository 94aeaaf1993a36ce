import type { Db } from './db';
import type { EmbedHandoffsTable } from './schema';

export type EmbedHandoffRow = EmbedHandoffsTable;

/** How long a used or expired code is kept, so a late replay is still recognised as one. */
const KEEP_AFTER_EXPIRY_MS = 15 * 60_000;

/** Stores a new code's hash; rows long past their expiry go at the same time. */
export async function insertHandoff(
  db: Db,
  row: Omit<EmbedHandoffRow, 'usedAt' | 'sessionId'>,
  now: Date,
) {
  const stale = new Date(now.getTime() - KEEP_AFTER_EXPIRY_MS).toISOString();
  await db.deleteFrom('embedHandoffs').where('expiresAt', '<', stale).execute();
  await db
    .insertInto('embedHandoffs')
    .values({ ...row, usedAt: null, sessionId: null })
    .execute();
}

export type Redemption =
  | { status: 'redeemed'; row: EmbedHandoffRow }
  | { status: 'used'; row: EmbedHandoffRow }
  | { status: 'unknown' };

/**
 * Marks the code used, once: one conditional UPDATE, so of any number of concurrent
 * redemptions on any number of instances exactly one wins. An expired or unknown code is
 * `unknown`; a code already redeemed is `used` (with the session it started).
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
  const seen = await db
    .selectFrom('embedHandoffs')
    .selectAll()
    .where('codeHash', '=', codeHash)
    .executeTakeFirst();
  return seen?.usedAt ? { status: 'used', row: seen } : { status: 'unknown' };
}

/** Records the session a redemption started, so a replay of the code can end it. */
export async function recordHandoffSession(db: Db, codeHash: string, sessionId: string) {
  await db
    .updateTable('embedHandoffs')
    .set({ sessionId })
    .where('codeHash', '=', codeHash)
    .execute();
}
