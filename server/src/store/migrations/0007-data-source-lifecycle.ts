// Frozen: what this migration runs, statement by statement, per dialect. Never edit a released
// migration (a fresh store must get exactly what every running store got); add the next one.
/**
 * Data source lifecycle: the last health check's failure reason, the start of the sync in
 * progress (a sync whose start is older than its deadline was abandoned by a killed process and
 * may be taken over), and the catalog the last successful sync read: its tables (numbered in
 * schema, name order, the key the schema endpoint pages by) and their columns.
 *
 * On PostgreSQL the store version (0003) stops counting writes that touch only these lifecycle
 * columns: health checks write every few minutes for every data source, and nothing cached
 * depends on them, so they must not invalidate every instance's caches.
 */
export const dataSourceLifecycle = {
  sqlite: [
    `alter table "data_sources" add column "health_error_message" text`,
    `alter table "data_sources" add column "sync_started_at" text`,
    `alter table "data_sources" add column "catalog_read_at" text`,
    `alter table "data_sources" add column "catalog_truncated" integer default 0 not null`,
    `alter table "data_sources" add column "catalog_table_count" integer default 0 not null`,
    `create table "catalog_tables" ("data_source_id" text not null references "data_sources" ("id") on delete cascade, "position" integer not null, "schema_name" text not null, "table_name" text not null, "kind" text not null, constraint "catalog_tables_pk" primary key ("data_source_id", "position"))`,
    `create table "catalog_columns" ("data_source_id" text not null references "data_sources" ("id") on delete cascade, "table_position" integer not null, "position" integer not null, "column_name" text not null, "column_type" text not null, "nullable" integer not null, constraint "catalog_columns_pk" primary key ("data_source_id", "table_position", "position"))`,
  ],
  postgres: [
    `alter table "data_sources" add column "health_error_message" text`,
    `alter table "data_sources" add column "sync_started_at" text`,
    `alter table "data_sources" add column "catalog_read_at" text`,
    `alter table "data_sources" add column "catalog_truncated" integer default 0 not null`,
    `alter table "data_sources" add column "catalog_table_count" integer default 0 not null`,
    `create table "catalog_tables" ("data_source_id" text not null references "data_sources" ("id") on delete cascade collate "C", "position" integer not null, "schema_name" text not null, "table_name" text not null, "kind" text not null, constraint "catalog_tables_pk" primary key ("data_source_id", "position"))`,
    `create table "catalog_columns" ("data_source_id" text not null references "data_sources" ("id") on delete cascade collate "C", "table_position" integer not null, "position" integer not null, "column_name" text not null, "column_type" text not null, "nullable" integer not null, constraint "catalog_columns_pk" primary key ("data_source_id", "table_position", "position"))`,
    `drop trigger data_sources_bump_store_version on data_sources`,
    `create trigger data_sources_bump_store_version
      before insert or delete or truncate or update of id, organization_id, display_name, description, dialect, database_name, username, host, port, ssl_enabled, ssl_custom_certificates_enabled, ssh_enabled, ssh_host, ssh_port, ssh_username, big_query_project_id, spanner_instance_id, snowflake_account_id, snowflake_warehouse, snowflake_role, is_demo, is_service_warehouse, password_sealed, ssh_password_sealed, ssh_private_key_sealed, ssh_private_key_passphrase_sealed, snowflake_private_key_sealed, snowflake_private_key_passphrase_sealed, big_query_json_key_sealed, created_at, updated_at
      on data_sources for each statement execute function bk_bump_store_version()`,
  ],
};
