// Frozen: what this migration runs, statement by statement, per dialect. Never edit a released
// migration (a fresh store must get exactly what every running store got); add the next one.
/**
 * PostgreSQL: one `store_version` counter, bumped in the writing transaction by a statement
 * trigger on each versioned table, so every bridge instance learns of a committed write with
 * the next read of the counter (caches are exact across instances, with no notification to
 * lose). BEFORE STATEMENT takes the counter's row lock before the statement locks any row, so
 * writers queue on it rather than deadlock. SQLite keeps its versions in the process
 * (sqlite-cached.ts), so there is nothing to create there.
 */
export const storeVersion = {
  sqlite: [],
  postgres: [
    `create table store_version (id integer primary key check (id = 1), version bigint not null)`,
    `insert into store_version (id, version) values (1, 0)`,
    `create function bk_bump_store_version() returns trigger language plpgsql as $$
      begin
        update store_version set version = version + 1 where id = 1;
        return null;
      end $$`,
    `create trigger users_bump_store_version
        before insert or update or delete or truncate on "users"
        for each statement execute function bk_bump_store_version()`,
    `create trigger organizations_bump_store_version
        before insert or update or delete or truncate on "organizations"
        for each statement execute function bk_bump_store_version()`,
    `create trigger members_bump_store_version
        before insert or update or delete or truncate on "members"
        for each statement execute function bk_bump_store_version()`,
    `create trigger data_sources_bump_store_version
        before insert or update or delete or truncate on "data_sources"
        for each statement execute function bk_bump_store_version()`,
  ],
};
