import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely';
import { initial } from './0001-initial';
import { rateLimits } from './0002-rate-limits';
import { storeVersion } from './0003-store-version';
import { revokedSessions } from './0004-revoked-sessions';
import { previousJwtSecret } from './0005-previous-jwt-secret';
import { dataSourceLifecycle } from './0007-data-source-lifecycle';
import type { Dialect } from './dialect';

export { VERSIONED_TABLES } from './versioned-tables';

/** Versioned migrations, in order. Never edit a released one: add the next. */
export function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    '0001_initial': initial(dialect),
    '0002_rate_limits': rateLimits(dialect),
    '0003_store_version': storeVersion(dialect),
    '0004_revoked_sessions': revokedSessions(dialect),
    '0005_previous_jwt_secret': previousJwtSecret(),
    '0007_data_source_lifecycle': dataSourceLifecycle(dialect),
  };
}

export async function migrateToLatest(db: Kysely<unknown>, dialect: Dialect) {
  const provider: MigrationProvider = { getMigrations: async () => migrations(dialect) };
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
