import type SQLite from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import { ALSO_CHANGES } from './cache-tags';

interface Options {
  /** Prepared statements kept, by SQL text. */
  maxStatements?: number;
  /** Read results kept, by SQL text and parameters. */
  maxResults?: number;
  /** Rows kept across all results (a list page is many rows, a lookup one). */
  maxRows?: number;
}

// Tables whose foreign keys name a table, with what they do when its rows go or change.
const REFERENCING = `select m.name as "table" from sqlite_master m, pragma_foreign_key_list(m.name) f
  where m.type = 'table' and lower(f."table") = ?
  and (f.on_delete <> 'NO ACTION' or f.on_update <> 'NO ACTION')`;

interface CachedRows {
  stamp: number;
  rows: unknown[];
}

/**
 * A generation per tag (a table, see cache-tags.ts): a write on this connection bumps those of
 * the tables it changes; anything that may have changed any table bumps a global epoch (and
 * calls `onBumpAll`).
 */
function tableGenerations(file: SQLite.Database, onBumpAll: () => void) {
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
  // Per table, every table a write to it changes: itself, what its triggers write
  // (ALSO_CHANGES) and, through cascading foreign keys, the tables that follow its rows; asked
  // of the schema once per table, until DDL.
  const changedWith = new Map<string, readonly string[]>();
  const referencing = file.prepare(REFERENCING).pluck();
  const closure = (table: string) => {
    let all = changedWith.get(table);
    if (all === undefined) {
      const seen = new Set<string>();
      const add = (t: string) => {
        if (seen.has(t)) return;
        seen.add(t);
        for (const also of ALSO_CHANGES[t] ?? []) add(also);
        for (const child of referencing.all(t) as string[]) add(child.toLowerCase());
      };
      add(table);
      all = [...seen];
      changedWith.set(table, all);
    }
    return all;
  };

  const bumpAll = () => {
    epoch++;
    onBumpAll();
    // DDL may have added or dropped foreign keys.
    changedWith.clear();
  };
  return {
    bumpAll,
    /**
     * Records that a statement that may write `tables` runs (and, as ran(), ends the look);
     * undefined: its tables are not known, so every tag moves.
     */
    written(tables: readonly string[] | undefined) {
      endLook();
      if (tables === undefined) return bumpAll();
      for (const table of tables) {
        for (const t of closure(table)) generations.set(t, (generations.get(t) ?? 0) + 1);
      }
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

/** A statement as Kysely's SQLite connection runs it (see sqlite-immediate.ts). */
export interface CachedStatement {
  reader: boolean;
  all(params: readonly unknown[]): unknown[];
  run(params: readonly unknown[]): SQLite.RunResult;
  iterate(params: readonly unknown[]): IterableIterator<unknown>;
}

/**
 * The better-sqlite3 database with two caches:
 * - prepared statements by SQL text (Kysely would prepare every query anew);
 * - results of read-only queries, exact rather than time-based, by tag (cache-tags.ts): a read
 *   is cached under the tables it names, and served only while their generations are
 *   unchanged; a write bumps the generations of the tables it changes. Anything that may have
 *   changed any table (a ROLLBACK, DDL, a write whose tables are not known, a commit by another
 *   connection such as the CLI, seen through `PRAGMA data_version`) bumps a global epoch
 *   instead. `PRAGMA data_version` is asked once per turn of the event loop, and again after
 *   any statement runs (see tableGenerations): asking on every read would make it the
 *   costliest call of a cached list under load. A read whose tables are not known is not
 *   cached.
 *
 * `version(tables)` exposes the same stamps, for callers that cache what they build from reads.
 */
export function cachedSqlite(file: SQLite.Database, options: Options = {}) {
  const results = resultCache(options.maxResults ?? 512, options.maxRows ?? 4096);
  const { written, ran, stampOf, bumpAll } = tableGenerations(file, results.clear);
  const statements = new LRUCache<string, SQLite.Statement>({
    max: options.maxStatements ?? 200,
  });

  const statement = (sqlText: string) => {
    let stmt = statements.get(sqlText);
    if (!stmt) {
      stmt = file.prepare(sqlText);
      statements.set(sqlText, stmt);
    }
    return stmt;
  };

  /** Rows of a read-only statement, from the cache while the tables it read are unchanged. */
  const readAll = (
    stmt: SQLite.Statement,
    sqlText: string,
    params: readonly unknown[],
    tables: readonly string[],
  ): unknown[] => {
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
    /** Something may have changed any table (a rollback): every tag moves. */
    changedAll: bumpAll,
    /**
     * Rows of a read-only statement that reads `tables`, shared with other callers: never
     * mutate them. (Kysely's CamelCasePlugin maps every row to a new object, so its callers
     * never see these.)
     */
    read(
      sqlText: string,
      params: readonly unknown[],
      tables: readonly string[],
    ): readonly unknown[] {
      const stmt = statement(sqlText);
      if (!stmt.reader || !stmt.readonly) throw new Error('read() takes read-only statements');
      return readAll(stmt, sqlText, params, tables);
    },
    /**
     * The statement for `sqlText`, which names `tables` (undefined: not known). A read-only one
     * with known tables is served from the cache; one that may write bumps their tags (all
     * tags when they are not known). Statements that change no rows (BEGIN, COMMIT, SAVEPOINT,
     * RELEASE; ROLLBACK too, see changedAll) bump nothing.
     */
    prepare(sqlText: string, tables: readonly string[] | undefined): CachedStatement {
      const stmt = statement(sqlText);
      if (stmt.readonly) {
        return {
          reader: stmt.reader,
          // INSERT … RETURNING is a "reader" too; only read-only statements may be cached.
          all: (params) => {
            if (stmt.reader && tables) return readAll(stmt, sqlText, params, tables).slice();
            ran();
            return stmt.all(params as unknown[]);
          },
          run: (params) => {
            ran();
            return stmt.run(params as unknown[]);
          },
          iterate: (params) => {
            ran();
            return stmt.iterate(params as unknown[]);
          },
        };
      }
      return {
        reader: stmt.reader,
        all: (params) => {
          written(tables);
          return stmt.all(params as unknown[]);
        },
        run: (params) => {
          written(tables);
          return stmt.run(params as unknown[]);
        },
        iterate: (params) => {
          written(tables);
          return stmt.iterate(params as unknown[]);
        },
      };
    },
  };
}

export type CachedSqlite = ReturnType<typeof cachedSqlite>;
