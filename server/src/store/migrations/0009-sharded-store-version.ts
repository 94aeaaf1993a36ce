import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from './dialect';
import { VERSIONED_TABLES } from './versioned-tables';

/** Rows of `store_versions`; a writing transaction bumps the one its transaction id picks. */
export const STORE_VERSION_SLOTS = 16;

/**
 * PostgreSQL: the store version (migration 0003) as 16 rows with a counter per versioned table,
 * instead of one counter for everything.
 *
 * The one counter was a row every write to users, organizations, members or data sources
 * updated and kept locked until its commit (a WAL flush): all such writes of a whole fleet took
 * turns, so first sign-ins (a user and a membership each) ran one flush at a time, and any of
 * them changed the version every cache compared against (the CORS origin index, rebuilt from
 * every organization, among them). Now a transaction bumps, for each table it writes, that
 * table's counter in the row `txid % 16`: writers wait on each other only when their ids share
 * a row, and a table's version is the sum of its column, which only grows and changes with each
 * committed write to it (the store still reads what is committed, so caches stay exact).
 *
 * A transaction that reads, checks and writes (store/write-lock.ts) locks every row, in order,
 * before any other row: it still excludes every other writer, and as writers hold at most one
 * row each, taken before their own rows, nobody waits in a circle.
 *
 * `store_version` stays as a view with the old shape (the sum of everything; an update of it
 * locks every row), so an instance of the previous version, still running during a rollout,
 * keeps exact caches and its write lock.
 */
export const shardedStoreVersion = (dialect: Dialect): Migration => ({
  async up(db: Kysely<unknown>) {
    if (dialect !== 'postgres') return;
    const counters = VERSIONED_TABLES.map((t) => sql.raw(`${t} bigint not null default 0`));
    await sql`create table store_versions (slot integer primary key, ${sql.join(counters)})`.execute(
      db,
    );
    // Versions never repeat: the old counter's value (and one) carries into the new sums.
    await sql`insert into store_versions (slot, users)
      select s, case when s = 0 then (select version + 1 from store_version where id = 1) else 0 end
      from generate_series(0, ${sql.lit(STORE_VERSION_SLOTS - 1)}) as s`.execute(db);
    const bumps = VERSIONED_TABLES.map((t) =>
      sql.raw(`${t} = ${t} + (tg_table_name = '${t}')::int`),
    );
    await sql`create or replace function bk_bump_store_version() returns trigger
      language plpgsql as $$
      begin
        update store_versions set ${sql.join(bumps)}
          where slot = (txid_current() % ${sql.lit(STORE_VERSION_SLOTS)})::int;
        return null;
      end $$`.execute(db);
    await sql`drop table store_version`.execute(db);
    const total = sql.raw(VERSIONED_TABLES.join(' + '));
    await sql`create view store_version as
      select 1 as id, (select sum(${total}) from store_versions)::bigint as version`.execute(db);
    await sql`create function bk_lock_store_versions() returns trigger language plpgsql as $$
      begin
        perform 1 from store_versions order by slot for update;
        return new;
      end $$`.execute(db);
    await sql`create trigger store_version_write_lock instead of update on store_version
      for each row execute function bk_lock_store_versions()`.execute(db);
  },
});
