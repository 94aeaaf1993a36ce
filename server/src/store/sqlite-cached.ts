import type SQLite from 'better-sqlite3';
import { BoundedMap } from '../bounded-map';

interface Options {
  /** Prepared statements kept, by SQL text. */
  maxStatements?: number;
  /** Read results kept, by SQL text and parameters. */
  maxResults?: number;
  /** Rows kept across all results (a list page is many rows, a lookup one). */
  maxRows?: number;
}

// Table names after FROM/JOIN (reads) and INSERT INTO/UPDATE (writes), quoted the way Kysely
// quotes them or bare as in hand-written SQL. A DELETE from a table that foreign keys
// reference may cascade to other tables, so it counts as a change to every table.
const READ_TABLES = /\b(?:from|join)\s+"?([A-Za-z_][A-Za-z0-9_]*)"?/gi;
const WRITE_TABLE =
  /^\s*(?:insert\s+(?:or\s+\w+\s+)?into|replace\s+into|update(?:\s+or\s+\w+)?)\s+"?([A-Za-z_][A-Za-z0-9_]*)"?/i;
const DELETE_TABLE = /^\s*delete\s+from\s+"?([A-Za-z_][A-Za-z0-9_]*)"?/i;
const REFERENCED = `select 1 from sqlite_master m, pragma_foreign_key_list(m.name) f
  where m.type = 'table' and lower(f."table") = ? limit 1`;
// Statements that change no table's rows; a ROLLBACK (to a savepoint or not) may undo writes
// that reads inside the transaction already saw, so it invalidates everything.
const NEUTRAL = /^\s*(?:begin|commit|end|savepoint|release|pragma\s+data_version)\b/i;

interface CachedRows {
  stamp: number;
  rows: unknown[];
}

/**
 * The better-sqlite3 database as Kysely's SqliteDialect sees it, with two caches:
 * - prepared statements by SQL text (Kysely would prepare every query anew);
 * - results of read-only queries, exact rather than time-based. Each table has a generation
 *   that a write to it on this connection bumps; a result is served only while the
 *   generations of the tables it read are unchanged. Anything that may have changed any table
 *   (a ROLLBACK, DDL, a statement naming no table, a commit by another connection such as the
 *   CLI, seen through `PRAGMA data_version`) bumps a global epoch instead.
 *
 * `version(tables)` exposes the same stamps, for callers that cache what they build from reads.
 */
export function cachedSqlite(file: SQLite.Database, options: Options = {}) {
  const maxStatements = options.maxStatements ?? 200;
  const maxResults = options.maxResults ?? 2048;
  const maxRows = options.maxRows ?? 4096;
  let rowsHeld = 0;
  const statements = new BoundedMap<string, { stmt: SQLite.Statement; tables: string[] }>(
    maxStatements,
  );
  const results = new Map<string, CachedRows>();
  const generations = new Map<string, number>();
  const dataVersion = file.prepare('PRAGMA data_version').pluck();
  let seenVersion = dataVersion.get();
  let epoch = 0;

  const bumpAll = () => {
    epoch++;
    results.clear();
    rowsHeld = 0;
    // DDL may have added or dropped foreign keys.
    referenced.clear();
    writtenTable.clear();
  };
  // Whether foreign keys reference a table, asked once per table (until the schema changes).
  const referenced = new Map<string, boolean>();
  const isReferenced = (table: string) => {
    let yes = referenced.get(table);
    if (yes === undefined) {
      yes = file.prepare(REFERENCED).get(table) !== undefined;
      referenced.set(table, yes);
    }
    return yes;
  };
  const writtenTable = new BoundedMap<string, string | null>(maxStatements);
  const written = (sqlText: string) => {
    if (NEUTRAL.test(sqlText)) return;
    let table = writtenTable.get(sqlText);
    if (table === undefined) {
      table = WRITE_TABLE.exec(sqlText)?.[1]?.toLowerCase() ?? null;
      const deleted = DELETE_TABLE.exec(sqlText)?.[1]?.toLowerCase();
      if (deleted && !isReferenced(deleted)) table = deleted;
      writtenTable.set(sqlText, table);
    }
    if (table) generations.set(table, (generations.get(table) ?? 0) + 1);
    else bumpAll();
  };
  // Generations only grow, so their sum changes whenever one of them does.
  const stampOf = (tables: readonly string[]) => {
    const version = dataVersion.get();
    if (version !== seenVersion) {
      seenVersion = version;
      bumpAll();
    }
    let stamp = epoch;
    for (const t of tables) stamp += generations.get(t) ?? 0;
    return stamp;
  };

  const statement = (sqlText: string) => {
    let entry = statements.get(sqlText);
    if (!entry) {
      const tables = [...sqlText.matchAll(READ_TABLES)].map((m) => m[1]!.toLowerCase());
      entry = { stmt: file.prepare(sqlText), tables: [...new Set(tables)] };
      statements.set(sqlText, entry);
    }
    return entry;
  };

  /** Rows of a read-only statement, from the cache while the tables it read are unchanged. */
  const readAll = (sqlText: string, params: readonly unknown[]): unknown[] => {
    const { stmt, tables } = statement(sqlText);
    const stamp = stampOf(tables);
    const key = `${sqlText}\u0000${JSON.stringify(params)}`;
    const cached = results.get(key);
    if (cached && cached.stamp === stamp) return cached.rows;
    const rows = stmt.all(params as unknown[]);
    if (cached) {
      rowsHeld -= cached.rows.length;
      results.delete(key);
    }
    // Oldest first, until both bounds hold with this result in.
    while (results.size > 0 && (results.size >= maxResults || rowsHeld + rows.length > maxRows)) {
      const [oldest, entry] = results.entries().next().value as [string, CachedRows];
      results.delete(oldest);
      rowsHeld -= entry.rows.length;
    }
    results.set(key, { stamp, rows });
    rowsHeld += rows.length;
    return rows;
  };

  return {
    close: () => file.close(),
    version: (tables: readonly string[]) => stampOf(tables),
    /**
     * Rows of a read-only statement, shared with other callers: never mutate them. (Kysely's
     * CamelCasePlugin maps every row to a new object, so its callers never see these.)
     */
    read: (sqlText: string, params: readonly unknown[]): readonly unknown[] => {
      const { stmt } = statement(sqlText);
      if (!stmt.reader || !stmt.readonly) throw new Error('read() takes read-only statements');
      return readAll(sqlText, params);
    },
    prepare(sqlText: string) {
      const { stmt } = statement(sqlText);
      // INSERT … RETURNING is a "reader" too; only read-only statements may be served from cache.
      if (!stmt.reader || !stmt.readonly) {
        return {
          reader: stmt.reader,
          all: (params: readonly unknown[]) => {
            written(sqlText);
            return stmt.all(params as unknown[]);
          },
          run: (params: readonly unknown[]) => {
            written(sqlText);
            return stmt.run(params as unknown[]);
          },
          iterate: (params: readonly unknown[]) => {
            written(sqlText);
            return stmt.iterate(params as unknown[]);
          },
        };
      }
      return {
        reader: true,
        all: (params: readonly unknown[]) => readAll(sqlText, params).slice(),
        run: (params: readonly unknown[]) => stmt.run(params as unknown[]),
        iterate: (params: readonly unknown[]) => stmt.iterate(params as unknown[]),
      };
    },
  };
}
