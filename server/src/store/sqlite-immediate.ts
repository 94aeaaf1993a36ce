import { CompiledQuery, type Driver, SqliteDialect } from 'kysely';

/**
 * Kysely's SQLite dialect, its transactions started with BEGIN IMMEDIATE: each takes the write
 * lock first, waiting (busy_timeout) while another process (the CLI, a second server on the
 * file) writes. A deferred transaction that reads and then writes would instead fail at once
 * with SQLITE_BUSY ("database is locked") if another process committed in between, since its
 * snapshot can't be upgraded. Every transaction here writes, so nothing is lost by it.
 */
export class ImmediateSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    driver.beginTransaction = async (connection) => {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    };
    return driver;
  }
}
