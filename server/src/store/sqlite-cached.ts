import type SQLite from 'better-sqlite3';

interface Options {
  /** Prepared statements kept, by SQL text. */
  maxStatements?: number;
  /** Read results kept, by SQL text and parameters. */
  maxResults?: number;
}

function evictOldest<K, V>(map: Map<K, V>, max: number) {
  if (map.size >= max) map.delete(map.keys().next().value as K);
}

/**
 * The better-sqlite3 database as Kysely's SqliteDialect sees it, with two caches:
 * - prepared statements by SQL text (Kysely would prepare every query anew);
 * - results of read-only queries, exact rather than time-based: any write on this
 *   connection (including BEGIN/COMMIT/ROLLBACK) clears them, and `PRAGMA data_version`
 *   changes when another connection (the CLI, say) commits, which clears them too.
 */
export function cachedSqlite(file: SQLite.Database, options: Options = {}) {
  const maxStatements = options.maxStatements ?? 200;
  const maxResults = options.maxResults ?? 128;
  const statements = new Map<string, SQLite.Statement>();
  const results = new Map<string, unknown[]>();
  const dataVersion = file.prepare('PRAGMA data_version').pluck();
  let seenVersion = dataVersion.get();

  const statement = (sqlText: string) => {
    let stmt = statements.get(sqlText);
    if (!stmt) {
      stmt = file.prepare(sqlText);
      evictOldest(statements, maxStatements);
      statements.set(sqlText, stmt);
    }
    return stmt;
  };

  return {
    close: () => file.close(),
    prepare(sqlText: string) {
      const stmt = statement(sqlText);
      // INSERT … RETURNING is a "reader" too; only read-only statements may be served from cache.
      if (!stmt.reader || !stmt.readonly) {
        return {
          reader: stmt.reader,
          all: (params: readonly unknown[]) => {
            results.clear();
            return stmt.all(params as unknown[]);
          },
          run: (params: readonly unknown[]) => {
            results.clear();
            return stmt.run(params as unknown[]);
          },
          iterate: (params: readonly unknown[]) => {
            results.clear();
            return stmt.iterate(params as unknown[]);
          },
        };
      }
      return {
        reader: true,
        all(params: readonly unknown[]) {
          const version = dataVersion.get();
          if (version !== seenVersion) {
            seenVersion = version;
            results.clear();
          }
          const key = `${sqlText}\u0000${JSON.stringify(params)}`;
          let rows = results.get(key);
          if (!rows) {
            rows = stmt.all(params as unknown[]);
            evictOldest(results, maxResults);
            results.set(key, rows);
          }
          // Kysely's CamelCasePlugin maps every row to a new object, so callers never share ours.
          return rows.slice();
        },
        run: (params: readonly unknown[]) => stmt.run(params as unknown[]),
        iterate: (params: readonly unknown[]) => stmt.iterate(params as unknown[]),
      };
    },
  };
}
