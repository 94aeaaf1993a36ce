import type { Compilable, CompiledQuery } from 'kysely';
import { declareStatementTables, tablesOfQuery } from './cache-tags';
import type { Db } from './schema';

const SLOT = Symbol('bk.slot');
type Slot = { readonly [SLOT]: number };
const isSlot = (value: unknown): value is Slot =>
  typeof value === 'object' && value !== null && SLOT in value;

type Row = Record<string, unknown>;
/**
 * Runs a compiled read-only query, which reads `tables` (its cache tags, see cache-tags.ts;
 * undefined when not known), straight on the driver, or returns undefined when it can't right
 * now (SQLite with a transaction holding the connection).
 */
export type RawRead = (
  sqlText: string,
  params: readonly unknown[],
  tables: readonly string[] | undefined,
) => Promise<readonly Row[]> | undefined;
const rawReaders = new WeakMap<Db, RawRead>();

/** Lets precompiled reads on `db` skip Kysely's executor (the store registers its driver). */
export function registerRawReader(db: Db, read: RawRead) {
  rawReaders.set(db, read);
}

// What Kysely's CamelCasePlugin does to result columns, for rows that skip it.
const camelNames = new Map<string, string>();
export function camelRow(row: Row): Row {
  const out: Row = {};
  for (const key in row) {
    let name = camelNames.get(key);
    if (name === undefined) {
      name = key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
      camelNames.set(key, name);
    }
    out[name] = row[key];
  }
  return out;
}

/**
 * A Kysely query built and compiled once per database: each call only puts its arguments in
 * the parameter list. For the statements on the hottest paths, where building and compiling
 * cost more than running them. A read then goes straight to the driver (the store's raw
 * reader: SQLite's result cache, or a named PostgreSQL statement) unless a transaction holds
 * the connection; writes and reads in a transaction go through Kysely's executor as usual.
 * `build` must use its arguments only as values (`where`, `values`, `limit`), never to choose
 * the shape of the query. Its tables (the cache tags) are those its query tree names, or
 * `options.tables` for a query holding raw SQL, whose tables the tree does not show.
 */
export interface Precompiled<Args extends unknown[], R> {
  (db: Db, ...args: Args): Promise<R[]>;
  /** The compiled SQL and this call's parameters, for a caller that runs it some other way. */
  bind(db: Db, ...args: Args): { sql: string; parameters: unknown[] };
}

export function precompiled<Args extends unknown[], R>(
  build: (db: Db, ...args: Args) => Compilable<R>,
  options: { tables?: readonly string[] } = {},
): Precompiled<Args, R> {
  type Entry = {
    query: CompiledQuery<R>;
    argAt: number[];
    read: boolean;
    tables: readonly string[] | undefined;
  };
  // By database object: a transaction is another object, and compiles for itself.
  const compiled = new WeakMap<Db, Entry>();
  const bound = (db: Db, args: Args) => {
    let entry = compiled.get(db);
    if (!entry) {
      const slots = args.map((_, i): Slot => ({ [SLOT]: i }));
      const query = build(db, ...(slots as unknown as Args)).compile();
      const argAt = query.parameters.map((p) => (isSlot(p) ? p[SLOT] : -1));
      if (new Set(argAt.filter((i) => i >= 0)).size !== args.length) {
        throw new Error('precompiled: every argument must be a parameter of the query');
      }
      const tables = options.tables ?? tablesOfQuery(query.query);
      declareStatementTables(query.sql, tables);
      entry = { query, argAt, read: query.query.kind === 'SelectQueryNode', tables };
      compiled.set(db, entry);
    }
    const { query, argAt } = entry;
    return {
      entry,
      parameters: query.parameters.map((p, i) => (argAt[i]! >= 0 ? args[argAt[i]!] : p)),
    };
  };
  const run = async (db: Db, ...args: Args) => {
    const { entry, parameters } = bound(db, args);
    const raw = entry.read
      ? rawReaders.get(db)?.(entry.query.sql, parameters, entry.tables)
      : undefined;
    if (raw) return (await raw).map(camelRow) as R[];
    return (await db.executeQuery<R>({ ...entry.query, parameters })).rows;
  };
  return Object.assign(run, {
    bind(db: Db, ...args: Args) {
      const { entry, parameters } = bound(db, args);
      return { sql: entry.query.sql, parameters };
    },
  });
}
