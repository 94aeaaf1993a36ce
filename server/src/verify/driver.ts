import type { DatabaseContext, VerifyFailure } from './failures';
import type { Scope } from './scope';

/** Where and as whom a driver connects, once the route (direct or SSH tunnel) is open. */
export interface DriverTarget {
  /** The address to connect to (already checked), or the local end of an SSH tunnel. */
  address: string;
  port: number;
  /** TLS SNI: the hostname the user gave, unset for IP literals. */
  servername: string | undefined;
  /** TLS required, certificate not verified (libpq's sslmode=require). */
  ssl: boolean;
  user: string;
  password: string | undefined;
  /** Undefined: the dialect's own default (see Driver.defaultDatabase). */
  database: string | undefined;
}

/** One open database session. Everything it holds is closed with its Scope in any case. */
export interface Connection {
  /**
   * Runs one statement; the rows as plain objects. Parameters are positional: `$1` in
   * PostgreSQL, `?` in MySQL.
   */
  query(sql: string, params?: readonly unknown[]): Promise<Record<string, unknown>[]>;
  /** Ends the session politely. */
  close(): Promise<void>;
}

/** What withConnection needs to know about a dialect. */
export interface Driver {
  /** The server's name in messages ("Check that this is a … server"). */
  product: string;
  /** The database to open when none is given. */
  defaultDatabase(user: string): string | undefined;
  /** Connects and authenticates; rejects with the driver's own errors. */
  connect(scope: Scope, target: DriverTarget): Promise<Connection>;
  /** Maps any error of `connect` or of a query to the shared failure table. */
  failure(error: unknown, context: DatabaseContext): VerifyFailure;
}
