import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type OperationNode,
  type QueryResult,
  SqliteDialect,
} from 'kysely';
import { declaredTables, tablesOfQuery, taggedTables, withTables } from './cache-tags';
import type { CachedSqlite } from './sqlite-cached';

// The tables of each query tree (a precompiled query runs the same tree every time).
const treeTables = new WeakMap<OperationNode, readonly string[] | undefined>();
const tablesOf = (compiled: CompiledQuery): readonly string[] | undefined => {
  const { sql, query } = compiled;
  const declared = taggedTables(compiled) ?? declaredTables(sql);
  if (declared) return declared;
  if (!treeTables.has(query)) treeTables.set(query, tablesOfQuery(query));
  return treeTables.get(query);
};

/**
 * Kysely's connection to the cached database, telling it the tables each query names (its
 * cache tags, see cache-tags.ts): otherwise what Kysely's own SQLite connection does.
 */
function taggedConnection(cached: CachedSqlite): DatabaseConnection {
  return {
    executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
      const stmt = cached.prepare(compiled.sql, tablesOf(compiled));
      const { parameters } = compiled;
      if (stmt.reader) return Promise.resolve({ rows: stmt.all(parameters) as R[] });
      const { changes, lastInsertRowid } = stmt.run(parameters);
      return Promise.resolve({
        numAffectedRows: BigInt(changes),
        insertId: BigInt(lastInsertRowid),
        rows: [],
      });
    },
    async *streamQuery<R>(compiled: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
      const stmt = cached.prepare(compiled.sql, tablesOf(compiled));
      if (!stmt.reader) throw new Error('only reads can be streamed');
      for (const row of stmt.iterate(compiled.parameters)) yield { rows: [row as R] };
    },
  };
}

/**
 * Kysely's SQLite dialect on the cached database (sqlite-cached.ts), its queries tagged with
 * their tables, and its transactions started with BEGIN IMMEDIATE: each takes the write lock
 * first, waiting (busy_timeout) while another process (the CLI, a second server on the file)
 * writes. A deferred transaction that reads and then writes would instead fail at once with
 * SQLITE_BUSY ("database is locked") if another process committed in between, since its
 * snapshot can't be upgraded. Every transaction here writes, so nothing is lost by it.
 *
 * A rollback (of a transaction or to a savepoint) moves every cache tag: reads inside the
 * transaction may have cached what it undid. A failed transaction is rolled back only if it is
 * still open: SQLite may already have rolled it back itself (out of disk space, an I/O error),
 * and a ROLLBACK then fails with "no transaction is active", which would hide the error that
 * matters.
 */
export class ImmediateSqliteDialect extends SqliteDialect {
  readonly #cached: CachedSqlite;
  readonly #inTransaction: () => boolean;

  constructor(cached: CachedSqlite, inTransaction: () => boolean) {
    // Kysely's driver keeps the one-connection mutex; its connection is replaced below.
    super({ database: { close: cached.close, prepare: () => assertUnused() } });
    this.#cached = cached;
    this.#inTransaction = inTransaction;
  }

  override createDriver(): Driver {
    const driver = super.createDriver();
    const cached = this.#cached;
    const connection = taggedConnection(cached);
    const acquire = driver.acquireConnection.bind(driver);
    const rollback = driver.rollbackTransaction.bind(driver);
    const rollbackToSavepoint = driver.rollbackToSavepoint?.bind(driver);
    driver.acquireConnection = async () => {
      await acquire();
      return connection;
    };
    driver.beginTransaction = async (conn) => {
      await conn.executeQuery(BEGIN_IMMEDIATE);
    };
    driver.rollbackTransaction = async (conn) => {
      try {
        if (this.#inTransaction()) await rollback(conn);
      } finally {
        cached.changedAll();
      }
    };
    if (rollbackToSavepoint) {
      driver.rollbackToSavepoint = async (conn, name, compile) => {
        try {
          await rollbackToSavepoint(conn, name, compile);
        } finally {
          cached.changedAll();
        }
      };
    }
    return driver;
  }
}

// SQLite calls BEGIN IMMEDIATE a write (it takes the write lock), but it changes no rows: no tag
// moves (untagged, it would empty the whole result cache on every transaction).
const BEGIN_IMMEDIATE = withTables(CompiledQuery.raw('begin immediate'), []);

function assertUnused(): never {
  throw new Error('queries run on the tagged connection');
}
