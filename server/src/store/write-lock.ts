import { sql } from 'kysely';
import type { Db, Engine } from './db';

/**
 * Inside the transaction `tx`, before rows are locked `FOR UPDATE` on PostgreSQL: takes the
 * store-version row first, the order every write to a versioned table takes its locks in (its
 * BEFORE STATEMENT trigger, then its rows), so a read-check-write never deadlocks with another
 * writer. SQLite needs nothing: a transaction has the one connection to itself.
 */
export async function takeWriteLock(tx: Db, engine: Engine): Promise<void> {
  if (engine !== 'postgres') return;
  await sql`update store_version set version = version + 1 where id = 1`.execute(tx);
}
