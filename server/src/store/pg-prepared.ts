import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type Pg from 'pg';

const PREPARED = Symbol('bk.prepared');
const names = new LRUCache<string, string>({ max: 1000 });
// Pools whose queries run as named statements (BRIDGE_PG_PREPARED=named).
const namedPools = new WeakSet<Pg.Pool>();

/**
 * The statement name for `text` on `pool`: a stable name when the pool runs named statements,
 * undefined (the unnamed statement, parsed where it runs) otherwise.
 */
export function statementNameOn(pool: Pg.Pool, text: string): string | undefined {
  return namedPools.has(pool) ? statementName(text) : undefined;
}

/** A stable statement name for a SQL text, so PostgreSQL parses and plans it once per connection. */
export function statementName(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `bk_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    names.set(text, name);
  }
  return name;
}
type Query = (text: unknown, ...rest: unknown[]) => Promise<unknown>;

/**
 * Runs every query Kysely sends as a named prepared statement, so PostgreSQL parses and plans
 * each distinct SQL text once per connection. Kysely generates a small fixed set of texts
 * (values travel as parameters), so the per-connection set stays small. Only for a connection
 * that is really this client's: behind a transaction pooler the statement lives on a server
 * connection other clients get next ("prepared statement ... already exists").
 */
export function preparedStatements(pool: Pg.Pool): {
  connect(): Promise<Pg.PoolClient>;
  end(): Promise<void>;
} {
  namedPools.add(pool);
  return {
    end: () => pool.end(),
    connect: async () => {
      const client = (await pool.connect()) as Pg.PoolClient & { [PREPARED]?: true };
      if (!client[PREPARED]) {
        const query = client.query.bind(client) as Query;
        // Only Kysely's promise-style (text, values) calls are named; other users of the pool
        // (the rate limiter passes a callback) go through untouched.
        (client as unknown as { query: Query }).query = (text, ...rest) =>
          typeof text === 'string' && rest.length <= 1 && typeof rest[0] !== 'function'
            ? query({ name: statementName(text), text, values: rest[0] })
            : query(text, ...rest);
        client[PREPARED] = true;
      }
      return client;
    },
  };
}

type QueryConfig = { name?: string; text: string; values?: unknown[] };

/**
 * `pool` for a library that names its statements itself (rate-limiter-flexible): the names are
 * dropped unless the pool runs named statements, for the same reason as ours.
 */
export function libraryClient(pool: Pg.Pool): { query(q: QueryConfig): Promise<unknown> } {
  return {
    query: (q) =>
      pool.query(namedPools.has(pool) ? q : { text: q.text, values: q.values as unknown[] }),
  };
}
