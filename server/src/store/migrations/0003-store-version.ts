import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from './dialect';
import { VERSIONED_TABLES } from './versioned-tables';

/**
 * PostgreSQL: one `store_version` counter, bumped in the writing transaction by a statement
 * trigger on each versioned table, so every bridge instance learns of a committed write with
 * the next read of the counter (caches are exact across instances, with no notification to
 * lose). BEFORE STATEMENT takes the counter's row lock before the statement locks any row, so
 * writers queue on it rather than deadlock. SQLite keeps its versions in the process
 * (sqlite-cached.ts), so there is nothing to create there.
 */
export const storeVersion = (dialect: Dialect): Migration => ({
  async up(db: Kysely<unknown>) {
    if (dialect !== 'postgres') return;
    await sql`create table store_version (id integer primary key check (id = 1), version bigint not null)`.execute(
      db,
    );
    await sql`insert into store_version (id, version) values (1, 0)`.execute(db);
    await sql`create function bk_bump_store_version() returns trigger language plpgsql as $$
      begin
        update store_version set version = version + 1 where id = 1;
        return null;
      end $$`.execute(db);
    for (const table of VERSIONED_TABLES) {
      await sql`create trigger ${sql.raw(`${table}_bump_store_version`)}
        before insert or update or delete or truncate on ${sql.table(table)}
        for each statement execute function bk_bump_store_version()`.execute(db);
    }
  },
});
