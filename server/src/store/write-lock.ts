import { sql } from 'kysely';
import type { Db, Engine } from './db';

/**
 * Inside the transaction `tx`, first, before rows are locked `FOR UPDATE` on PostgreSQL: locks
 * every store-version row in order (migration 0009). Every write to a versioned table takes one
 * of those rows (its BEFORE STATEMENT trigger) before its own rows, so a read-check-write
 * excludes every other writer and never deadlocks with one. SQLite needs nothing: a
 * transaction has the one connection to itself.
 */
export async function takeWriteLock(tx: Db, engine: Engine): Promise<void> {
  if (engine !== 'postgres') return;
  await sql`select slot from store_versions order by slot for update`.execute(tx);
}
