import { type Kysely, type Migration, sql } from 'kysely';
import { byteOrder, type Dialect } from './dialect';

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
export const dataSourceLifecycle = (dialect: Dialect): Migration => ({
  async up(db: Kysely<unknown>) {
    const c = byteOrder(dialect);
    for (const [name, type] of [
      ['health_error_message', 'text'],
      ['sync_started_at', 'text'],
      ['catalog_read_at', 'text'],
    ] as const) {
      await db.schema.alterTable('data_sources').addColumn(name, type).execute();
    }
    await db.schema
      .alterTable('data_sources')
      .addColumn('catalog_truncated', 'integer', (col) => col.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('data_sources')
      .addColumn('catalog_table_count', 'integer', (col) => col.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createTable('catalog_tables')
      .addColumn('data_source_id', 'text', (col) =>
        c(col.notNull().references('data_sources.id').onDelete('cascade')),
      )
      .addColumn('position', 'integer', (col) => col.notNull())
      .addColumn('schema_name', 'text', (col) => col.notNull())
      .addColumn('table_name', 'text', (col) => col.notNull())
      .addColumn('kind', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('catalog_tables_pk', ['data_source_id', 'position'])
      .execute();
    await db.schema
      .createTable('catalog_columns')
      .addColumn('data_source_id', 'text', (col) =>
        c(col.notNull().references('data_sources.id').onDelete('cascade')),
      )
      .addColumn('table_position', 'integer', (col) => col.notNull())
      .addColumn('position', 'integer', (col) => col.notNull())
      .addColumn('column_name', 'text', (col) => col.notNull())
      .addColumn('column_type', 'text', (col) => col.notNull())
      .addColumn('nullable', 'integer', (col) => col.notNull())
      .addPrimaryKeyConstraint('catalog_columns_pk', [
        'data_source_id',
        'table_position',
        'position',
      ])
      .execute();
    if (dialect !== 'postgres') return;
    await sql`drop trigger data_sources_bump_store_version on data_sources`.execute(db);
    await sql`create trigger data_sources_bump_store_version
      before insert or delete or truncate or update of ${sql.raw(CONFIG_COLUMNS.join(', '))}
      on data_sources for each statement execute function bk_bump_store_version()`.execute(db);
  },
});

/** Every data_sources column but the lifecycle ones (see above). */
const CONFIG_COLUMNS = [
  'id',
  'organization_id',
  'display_name',
  'description',
  'dialect',
  'database_name',
  'username',
  'host',
  'port',
  'ssl_enabled',
  'ssl_custom_certificates_enabled',
  'ssh_enabled',
  'ssh_host',
  'ssh_port',
  'ssh_username',
  'big_query_project_id',
  'spanner_instance_id',
  'snowflake_account_id',
  'snowflake_warehouse',
  'snowflake_role',
  'is_demo',
  'is_service_warehouse',
  'password_sealed',
  'ssh_password_sealed',
  'ssh_private_key_sealed',
  'ssh_private_key_passphrase_sealed',
  'snowflake_private_key_sealed',
  'snowflake_private_key_passphrase_sealed',
  'big_query_json_key_sealed',
  'created_at',
  'updated_at',
];
