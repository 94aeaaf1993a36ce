import type Pg from 'pg';
import { perOwner } from './gathered';

/**
 * PostgreSQL: the newest store version read so far per table set (by the statement text that
 * reads it), with the moment (`performance.now()`) the statement that read it was sent. A
 * version read by a statement sent after a caller arrived shows every write committed before
 * it arrived, exactly as a read of its own would: Store.version(tables, since) answers from
 * here when it can, so a version that came with another statement (the API-key lookup, see
 * api-keys.ts) spares a round trip.
 */
export const versionReads = perOwner((_pool: Pg.Pool) => {
  const newest = new Map<string, { sentAt: number; version: string }>();
  return {
    /** Records `version`, read by a statement sent at `sentAt`, unless a newer one is known. */
    note(sqlText: string, sentAt: number, version: string) {
      const known = newest.get(sqlText);
      if (!known || known.sentAt < sentAt) newest.set(sqlText, { sentAt, version });
    },
    /** The newest version read by a statement sent after `since`, if any. */
    after(sqlText: string, since: number): string | undefined {
      const known = newest.get(sqlText);
      return known && known.sentAt > since ? known.version : undefined;
    },
  };
});
