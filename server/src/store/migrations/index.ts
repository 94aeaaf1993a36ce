import {
  type Kysely,
  type Migration,
  type MigrationProvider,
  Migrator,
  PostgresAdapter,
  sql,
} from 'kysely';
import { initial } from './0001-initial';
import { rateLimits } from './0002-rate-limits';
import { storeVersion } from './0003-store-version';
import { revokedSessions } from './0004-revoked-sessions';
import { previousJwtSecret } from './0005-previous-jwt-secret';
import { embedHandoffs } from './0006-embed-handoffs';
import { dataSourceLifecycle } from './0007-data-source-lifecycle';
import { ssoReadFunction } from './0008-sso-read-function';
import { shardedStoreVersion } from './0009-sharded-store-version';
import { ssoWriteFunctions } from './0010-sso-write-functions';
import { embedOriginPatterns } from './0011-embed-origin-patterns';
import { embedHandoffReplays } from './0012-embed-handoff-replays';
import { ssoClaimsReadBackOnce } from './0013-sso-claims-read-back-once';
import { ssoMembersAfterRedis } from './0014-sso-members-after-redis';
import { keyChecks } from './0015-key-checks';
import { webhooks } from './0017-webhooks';
import { apiKeyHitWithoutVersion } from './0020-api-key-hit-without-version';

export type Dialect = 'sqlite' | 'postgres';

export { VERSIONED_TABLES } from './versioned-tables';

/** Each migration's statements per dialect, in order. Never edit a released one: add the next. */
const FROZEN: Record<string, Readonly<Record<Dialect, readonly string[]>>> = {
  '0001_initial': initial,
  '0002_rate_limits': rateLimits,
  '0003_store_version': storeVersion,
  '0004_revoked_sessions': revokedSessions,
  '0005_previous_jwt_secret': previousJwtSecret,
  '0006_embed_handoffs': embedHandoffs,
  '0007_data_source_lifecycle': dataSourceLifecycle,
  '0008_sso_read_function': ssoReadFunction,
  '0009_sharded_store_version': shardedStoreVersion,
  '0010_sso_write_functions': ssoWriteFunctions,
  '0011_embed_origin_patterns': embedOriginPatterns,
  '0012_embed_handoff_replays': embedHandoffReplays,
  '0013_sso_claims_read_back_once': ssoClaimsReadBackOnce,
  '0014_sso_members_after_redis': ssoMembersAfterRedis,
  '0015_key_checks': keyChecks,
  '0017_webhooks': webhooks,
  '0020_api_key_hit_without_version': apiKeyHitWithoutVersion,
};

/** The statements migration `name` runs on `dialect` (for tests and reviews). */
export function migrationSql(dialect: Dialect): Record<string, readonly string[]> {
  return Object.fromEntries(Object.entries(FROZEN).map(([name, sqls]) => [name, sqls[dialect]]));
}

/** Versioned migrations, in order, as Kysely's migrator runs them (one statement at a time). */
export function migrations(dialect: Dialect): Record<string, Migration> {
  return Object.fromEntries(
    Object.entries(migrationSql(dialect)).map(([name, statements]) => [
      name,
      {
        async up(db: Kysely<unknown>) {
          for (const statement of statements) await sql.raw(statement).execute(db);
        },
      },
    ]),
  );
}

// Kysely's own migration lock id, so a bridge of an older version migrating at the same time
// still waits on (or holds) the same lock.
const MIGRATION_LOCK_ID = '3853314791062309107';

/**
 * PostgreSQL without Kysely's migration lock: that one is session-level, taken outside the
 * migration transaction, and through a transaction pooler the lock, the migrations and the
 * unlock each may run on another server connection (the lock then stays held there, forever).
 * migrateToLatest takes a transaction-level lock inside the migration transaction instead.
 */
export class PostgresXactLockAdapter extends PostgresAdapter {
  override async acquireMigrationLock() {}
  override async releaseMigrationLock() {}
}

/** Runs one SQL text (no parameters; several statements allowed) on the migration's connection. */
export type RunSql = (text: string) => Promise<Record<string, unknown>[]>;

/**
 * More schema to bring up under the migration lock, after the store's own migrations (the job
 * engine's); returns what it applied.
 */
export type InLockStep = (run: RunSql) => Promise<string[]>;

export async function migrateToLatest(
  db: Kysely<unknown>,
  dialect: Dialect,
  inLock: InLockStep[] = [],
) {
  const provider: MigrationProvider = { getMigrations: async () => migrations(dialect) };
  const run = async (on: Kysely<unknown>, disableTransactions: boolean) => {
    const migrator = new Migrator({ db: on, provider, disableTransactions });
    const { error, results } = await migrator.migrateToLatest();
    if (error) throw error instanceof Error ? error : new Error(String(error));
    return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  };
  if (dialect !== 'postgres') return run(db, false);
  // One transaction on one connection holds everything: the lock (released by the commit or
  // the rollback, whoever the pooler gives the server connection to next), the check of the
  // migration table and every pending migration. Another instance waits at the lock, then
  // finds nothing left to do.
  return db.connection().execute(async (conn) => {
    await sql`begin`.execute(conn);
    try {
      await sql`select pg_advisory_xact_lock(${sql.raw(MIGRATION_LOCK_ID)})`.execute(conn);
      const applied = await run(conn, true);
      const runSql: RunSql = async (text) =>
        (await sql.raw<Record<string, unknown>>(text).execute(conn)).rows;
      for (const step of inLock) applied.push(...(await step(runSql)));
      await sql`commit`.execute(conn);
      return applied;
    } catch (error) {
      await sql`rollback`.execute(conn).catch(() => {});
      throw error;
    }
  });
}
