import type { Kysely, Migration } from 'kysely';
import { byteOrder, type Dialect } from './dialect';

type Db = Kysely<unknown>;
type ByteOrder = ReturnType<typeof byteOrder>;

async function createUsers(db: Db, c: ByteOrder) {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (col) => c(col.primaryKey()))
    .addColumn('email', 'text', (col) => col.notNull().unique())
    .addColumn('full_name', 'text')
    .addColumn('first_name', 'text')
    .addColumn('last_name', 'text')
    .addColumn('title', 'text')
    .addColumn('avatar_url', 'text')
    .addColumn('is_email_verified', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
}

async function createApiKeys(db: Db, c: ByteOrder) {
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (col) => c(col.primaryKey()))
    .addColumn('user_id', 'text', (col) =>
      c(col.notNull().references('users.id').onDelete('cascade')),
    )
    .addColumn('name', 'text')
    .addColumn('key_hash', 'text', (col) => col.notNull().unique())
    .addColumn('hint', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('expires_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('api_keys_user').on('api_keys').column('user_id').execute();
}

async function createOrganizations(db: Db, c: ByteOrder) {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (col) => c(col.primaryKey()))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('slug', 'text', (col) => c(col.notNull().unique()))
    .addColumn('custom_ai_context', 'text')
    .addColumn('onboarding_status', 'text', (col) => col.notNull())
    .addColumn('full_embed_enabled', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('embed_allowed_origins', 'text', (col) => col.notNull().defaultTo('[]'))
    .addColumn('jwt_secret_sealed', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
}

async function createMembers(db: Db, c: ByteOrder) {
  await db.schema
    .createTable('members')
    .addColumn('id', 'text', (col) => c(col.primaryKey()))
    .addColumn('organization_id', 'text', (col) =>
      c(col.notNull().references('organizations.id').onDelete('cascade')),
    )
    .addColumn('user_id', 'text', (col) =>
      c(col.notNull().references('users.id').onDelete('cascade')),
    )
    .addColumn('role', 'text', (col) => col.notNull())
    .addColumn('groups', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addUniqueConstraint('members_org_user', ['organization_id', 'user_id'])
    .execute();
  await db.schema
    .createIndex('members_user_org')
    .on('members')
    .columns(['user_id', 'organization_id'])
    .execute();
}

// Data sources: connection fields, sync and health state, then the sealed secrets.
async function createDataSources(db: Db, c: ByteOrder) {
  let ds = db.schema
    .createTable('data_sources')
    .addColumn('id', 'text', (col) => c(col.primaryKey()))
    .addColumn('organization_id', 'text', (col) =>
      c(col.notNull().references('organizations.id').onDelete('cascade')),
    )
    .addColumn('display_name', 'text', (col) => col.notNull())
    .addColumn('description', 'text')
    .addColumn('dialect', 'text', (col) => col.notNull())
    .addColumn('database_name', 'text')
    .addColumn('username', 'text')
    .addColumn('host', 'text')
    .addColumn('port', 'integer')
    .addColumn('ssl_enabled', 'integer', (col) => col.notNull())
    .addColumn('ssl_custom_certificates_enabled', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('ssh_enabled', 'integer', (col) => col.notNull())
    .addColumn('ssh_host', 'text')
    .addColumn('ssh_port', 'integer')
    .addColumn('ssh_username', 'text');
  for (const name of [
    'big_query_project_id',
    'spanner_instance_id',
    'snowflake_account_id',
    'snowflake_warehouse',
    'snowflake_role',
    'last_successful_sync_at',
  ]) {
    ds = ds.addColumn(name, 'text');
  }
  ds = ds
    .addColumn('last_sync_status', 'text', (col) => col.notNull())
    .addColumn('last_sync_attempt_at', 'text')
    .addColumn('has_completed_first_sync', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('sync_error_message', 'text')
    .addColumn('last_healthy_at', 'text')
    .addColumn('last_health_status', 'text')
    .addColumn('last_health_check_attempt_at', 'text')
    .addColumn('is_demo', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('is_service_warehouse', 'integer', (col) => col.notNull().defaultTo(0));
  for (const name of [
    'password_sealed',
    'ssh_password_sealed',
    'ssh_private_key_sealed',
    'ssh_private_key_passphrase_sealed',
    'snowflake_private_key_sealed',
    'snowflake_private_key_passphrase_sealed',
    'big_query_json_key_sealed',
  ]) {
    ds = ds.addColumn(name, 'text');
  }
  await ds
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('data_sources_org_id')
    .on('data_sources')
    .columns(['organization_id', 'id'])
    .execute();
}

async function createSsoJti(db: Db, c: ByteOrder) {
  await db.schema
    .createTable('sso_jti')
    .addColumn('organization_id', 'text', (col) => c(col.notNull()))
    .addColumn('jti', 'text', (col) => c(col.notNull()))
    .addColumn('expires_at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('sso_jti_pk', ['organization_id', 'jti'])
    .execute();
  await db.schema.createIndex('sso_jti_expires').on('sso_jti').column('expires_at').execute();
}

export function initial(dialect: Dialect): Migration {
  const c = byteOrder(dialect);
  return {
    async up(db: Db) {
      // In this order: later tables reference earlier ones.
      for (const create of [
        createUsers,
        createApiKeys,
        createOrganizations,
        createMembers,
        createDataSources,
        createSsoJti,
      ]) {
        await create(db, c);
      }
    },
  };
}
