import { CompiledQuery, type Driver, SqliteDialect, type SqliteDialectConfig } from 'kysely';

/**
 * Kysely's SQLite dialect, its transactions started with BEGIN IMMEDIATE: each takes the write
 * lock first, waiting (busy_timeout) while another process (the CLI, a second server on the
 * file) writes. A deferred transaction that reads and then writes would instead fail at once
 * with SQLITE_BUSY ("database is locked") if another process committed in between, since its
 * snapshot can't be upgraded. Every transaction here writes, so nothing is lost by it.
 *
 * A failed transaction is rolled back only if it is still open: SQLite may already have rolled
 * it back itself (out of disk space, an I/O error), and a ROLLBACK then fails with "no
 * transaction is active", which would hide the error that matters.
 */
export class ImmediateSqliteDialect extends SqliteDialect {
  readonly #inTransaction: () => boolean;

  constructor(config: SqliteDialectConfig, inTransaction: () => boolean) {
    super(config);
    this.#inTransaction = inTransaction;
  }

  override createDriver(): Driver {
    const driver = super.createDriver();
    const rollback = driver.rollbackTransaction.bind(driver);
    driver.beginTransaction = async (connection) => {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    };
    driver.rollbackTransaction = async (connection) => {
      if (this.#inTransaction()) await rollback(connection);
    };
    return driver;
  }
}
