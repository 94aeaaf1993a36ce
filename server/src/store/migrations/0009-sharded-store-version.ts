// Frozen: what this migration runs, statement by statement, per dialect. Never edit a released
// migration (a fresh store must get exactly what every running store got); add the next one.
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
export const shardedStoreVersion = {
  sqlite: [],
  postgres: [
    `create table store_versions (slot integer primary key, users bigint not null default 0, organizations bigint not null default 0, members bigint not null default 0, data_sources bigint not null default 0)`,
    `insert into store_versions (slot, users)
      select s, case when s = 0 then (select version + 1 from store_version where id = 1) else 0 end
      from generate_series(0, 15) as s`,
    `create or replace function bk_bump_store_version() returns trigger
      language plpgsql as $$
      begin
        update store_versions set users = users + (tg_table_name = 'users')::int, organizations = organizations + (tg_table_name = 'organizations')::int, members = members + (tg_table_name = 'members')::int, data_sources = data_sources + (tg_table_name = 'data_sources')::int
          where slot = (txid_current() % 16)::int;
        return null;
      end $$`,
    `drop table store_version`,
    `create view store_version as
      select 1 as id, (select sum(users + organizations + members + data_sources) from store_versions)::bigint as version`,
    `create function bk_lock_store_versions() returns trigger language plpgsql as $$
      begin
        perform 1 from store_versions order by slot for update;
        return new;
      end $$`,
    `create trigger store_version_write_lock instead of update on store_version
      for each row execute function bk_lock_store_versions()`,
  ],
};
