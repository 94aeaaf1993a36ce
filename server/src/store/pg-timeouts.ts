import type Pg from 'pg';

/** How long PostgreSQL may take before a request gets its 503 (ms). */
export interface PgTimeouts {
  /** Waiting for a pooled connection, or opening a new one (pg-pool bounds both with one timer). */
  connectMs: number;
  /** One statement's answer, measured by the client: it works behind any pooler. */
  statementMs: number;
}

export const DEFAULT_PG_TIMEOUTS: PgTimeouts = { connectMs: 1500, statementMs: 5000 };

/**
 * pg.Pool options that bound every wait. The statement bound is client-side (`query_timeout`):
 * it holds when the server, or the network to it, stops answering, and needs no session
 * setting (a `SET` would not survive PgBouncer's transaction pooling).
 */
export function pgTimeoutOptions(timeouts: PgTimeouts): Pg.PoolConfig {
  return { connectionTimeoutMillis: timeouts.connectMs, query_timeout: timeouts.statementMs };
}

type Callback = (err: Error | null, ...rest: unknown[]) => void;

/**
 * Drops a connection whose statement timed out: its answer may still arrive, and would be read
 * as the next statement's. Destroying the socket fails what is queued on it, marks it not
 * queryable, and pg-pool discards it on release. Call on each new client (the pool's `connect`).
 */
export function dropOnQueryTimeout(client: Pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const drop = (err: unknown) => {
    if ((err as Error | null)?.message === 'Query read timeout') {
      (
        client as unknown as { connection: { stream: { destroy(): void } } }
      ).connection.stream.destroy();
    }
  };
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args) => {
    const last = args.at(-1);
    if (typeof last === 'function') {
      args[args.length - 1] = ((err, ...rest) => {
        drop(err);
        (last as Callback)(err, ...rest);
      }) satisfies Callback;
      return query(...args);
    }
    const result = query(...args);
    // Observed, not consumed: the caller still gets the rejection.
    if (result instanceof Promise) result.catch(drop);
    return result;
  };
}
