import type SQLite from 'better-sqlite3';
import { LRUCache } from 'lru-cache';

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
 * Per-table generations: a write to a table on this connection bumps its own; anything that
 * may have changed any table bumps a global epoch (and calls `onBumpAll`).
 */
function tableGenerations(file: SQLite.Database, maxStatements: number, onBumpAll: () => void) {
  const generations = new Map<string, number>();
  const dataVersion = file.prepare('PRAGMA data_version').pluck();
  let seenVersion = dataVersion.get();
  let epoch = 0;
  // Whether `seenVersion` was read in this turn of the event loop with no statement run on the
  // connection since. Then asking again could only find a commit that landed in the last few
  // µs, which no request handled in this turn can have waited for (each arrived before the turn
  // began), and that nothing this process read has shown yet: the answer is the same as at the
  // last look. A statement that runs may see such a commit, so it ends the window.
  let lookedThisTurn = false;
  const endLook = () => {
    lookedThisTurn = false;
  };
  // Whether foreign keys reference a table, asked once per table (until the schema changes).
  const referenced = new Map<string, boolean>();
  // The table a statement writes, by SQL text ('' when it names none).
  const writtenTable = new LRUCache<string, string>({ max: maxStatements });

  const bumpAll = () => {
    epoch++;
    onBumpAll();
    // DDL may have added or dropped foreign keys.
    referenced.clear();
    writtenTable.clear();
  };
  const isReferenced = (table: string) => {
    let yes = referenced.get(table);
    if (yes === undefined) {
      yes = file.prepare(REFERENCED).get(table) !== undefined;
      referenced.set(table, yes);
    }
    return yes;
  };
  return {
    /** Records that a statement that may write runs (and, as ran(), ends the look). */
    written(sqlText: string) {
      endLook();
      if (NEUTRAL.test(sqlText)) return;
      let table = writtenTable.get(sqlText);
      if (table === undefined) {
        table = WRITE_TABLE.exec(sqlText)?.[1]?.toLowerCase() ?? '';
        const deleted = DELETE_TABLE.exec(sqlText)?.[1]?.toLowerCase();
        if (deleted && !isReferenced(deleted)) table = deleted;
        writtenTable.set(sqlText, table);
      }
      if (table) generations.set(table, (generations.get(table) ?? 0) + 1);
      else bumpAll();
    },
    /** A read ran on the connection: the next stamp looks at `PRAGMA data_version` again. */
    ran: endLook,
    /** A number that changes whenever one of `tables` may have changed. */
    stampOf(tables: readonly string[]) {
      if (!lookedThisTurn) {
        const version = dataVersion.get();
        if (version !== seenVersion) {
          seenVersion = version;
          bumpAll();
        }
        lookedThisTurn = true;
        setImmediate(endLook);
      }
      // Generations only grow, so their sum changes whenever one of them does.
      let stamp = epoch;
      for (const t of tables) stamp += generations.get(t) ?? 0;
      return stamp;
    },
  };
}

/**
 * Read results by key, at most `maxResults` of them and `maxRows` rows in all, the least
 * recently used out first: a result served from here moves to the back, so a flood of reads
 * made once (each first sign-in reads its own new email) pushes out each other, not the list
 * pages read all the time. A result of more than a quarter of `maxRows` is not kept: it would
 * push out many small ones (a list page is at most 100 rows), or all of them.
 */
function resultCache(maxResults: number, maxRows: number) {
  const results = new LRUCache<string, CachedRows>({
    max: maxResults,
    maxSize: maxRows,
    // An empty result is still an entry: it weighs one row.
    sizeCalculation: (entry) => Math.max(1, entry.rows.length),
  });
  const maxKept = Math.max(1, Math.floor(maxRows / 4));
  return {
    /** The rows kept under `key`, if they were read at `stamp` (they become the newest). */
    get: (key: string, stamp: number) => {
      const cached = results.peek(key);
      if (cached?.stamp !== stamp) return undefined;
      return results.get(key)?.rows;
    },
    set(key: string, stamp: number, rows: unknown[]) {
      // A result read again is the newest: set() puts it last, the first to be kept.
      if (rows.length <= maxKept) results.set(key, { stamp, rows });
      else results.delete(key);
    },
    clear: () => results.clear(),
  };
}

/**
 * The better-sqlite3 database as Kysely's SqliteDialect sees it, with two caches:
 * - prepared statements by SQL text (Kysely would prepare every query anew);
 * - results of read-only queries, exact rather than time-based. Each table has a generation
 *   that a write to it on this connection bumps; a result is served only while the
 *   generations of the tables it read are unchanged. Anything that may have changed any table
 *   (a ROLLBACK, DDL, a statement naming no table, a commit by another connection such as the
 *   CLI, seen through `PRAGMA data_version`) bumps a global epoch instead. `PRAGMA
 *   data_version` is asked once per turn of the event loop, and again after any statement
 *   runs (see tableGenerations): asking on every read would make it the costliest call of a
 *   cached list under load.
 *
 * `version(tables)` exposes the same stamps, for callers that cache what they build from reads.
 */
export function cachedSqlite(file: SQLite.Database, options: Options = {}) {
  const maxStatements = options.maxStatements ?? 200;
  const results = resultCache(options.maxResults ?? 2048, options.maxRows ?? 4096);
  const { written, ran, stampOf } = tableGenerations(file, maxStatements, results.clear);
  const statements = new LRUCache<string, { stmt: SQLite.Statement; tables: string[] }>({
    max: maxStatements,
  });

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
    const cached = results.get(key, stamp);
    if (cached) return cached;
    ran();
    const rows = stmt.all(params as unknown[]);
    results.set(key, stamp, rows);
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
        run: (params: readonly unknown[]) => {
          ran();
          return stmt.run(params as unknown[]);
        },
        iterate: (params: readonly unknown[]) => {
          ran();
          return stmt.iterate(params as unknown[]);
        },
      };
    },
  };
}
