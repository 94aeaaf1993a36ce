import type { Compilable, CompiledQuery } from 'kysely';
import type { Db } from './db';

const SLOT = Symbol('bk.slot');
type Slot = { readonly [SLOT]: number };
const isSlot = (value: unknown): value is Slot =>
  typeof value === 'object' && value !== null && SLOT in value;

/**
 * A Kysely query built and compiled once per database: each call only puts its arguments in
 * the parameter list and executes (through the driver, so SQLite's connection mutex and the
 * plugins still apply). For the statements on the hottest paths, where building and compiling
 * cost more than running them. `build` must use its arguments only as values (`where`,
 * `values`, `limit`), never to choose the shape of the query.
 */
export function precompiled<Args extends unknown[], R>(
  build: (db: Db, ...args: Args) => Compilable<R>,
): (db: Db, ...args: Args) => Promise<R[]> {
  // By database object: a transaction is another object, and compiles for itself.
  const compiled = new WeakMap<Db, { query: CompiledQuery<R>; argAt: number[] }>();
  return async (db, ...args) => {
    let entry = compiled.get(db);
    if (!entry) {
      const slots = args.map((_, i): Slot => ({ [SLOT]: i }));
      const query = build(db, ...(slots as unknown as Args)).compile();
      const argAt = query.parameters.map((p) => (isSlot(p) ? p[SLOT] : -1));
      if (new Set(argAt.filter((i) => i >= 0)).size !== args.length) {
        throw new Error('precompiled: every argument must be a parameter of the query');
      }
      entry = { query, argAt };
      compiled.set(db, entry);
    }
    const { query, argAt } = entry;
    const parameters = query.parameters.map((p, i) => (argAt[i]! >= 0 ? args[argAt[i]!] : p));
    return (await db.executeQuery<R>({ ...query, parameters })).rows;
  };
}
