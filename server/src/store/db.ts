import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { CamelCasePlugin, Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { migrateToLatest } from './migrations';
import type { Database } from './schema';

export type Db = Kysely<Database>;
export type Engine = 'sqlite' | 'postgres';

export interface Store {
  db: Db;
  engine: Engine;
  /** Resolves when the store answers a trivial query. */
  ping(): Promise<void>;
  migrate(): Promise<string[]>;
  close(): Promise<void>;
}

export interface StoreOptions {
  databaseUrl?: string | undefined;
  dataDir: string;
  /** Pool size for PostgreSQL. */
  poolSize?: number;
}

/** Opens SQLite in `dataDir/bridge.db` (WAL), or PostgreSQL when `databaseUrl` is set. */
export function openStore(options: StoreOptions): Store {
  const engine: Engine = options.databaseUrl ? 'postgres' : 'sqlite';
  let db: Db;
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 2000,
      idleTimeoutMillis: 30_000,
    });
    // A broken idle connection must not crash the process; the next query reports it.
    pool.on('error', () => {});
    db = new Kysely<Database>({
      dialect: new PostgresDialect({ pool }),
      plugins: [new CamelCasePlugin()],
    });
  } else {
    fs.mkdirSync(options.dataDir, { recursive: true });
    const file = new SQLite(path.join(options.dataDir, 'bridge.db'));
    file.pragma('journal_mode = WAL');
    // NORMAL in WAL mode loses nothing when the process dies; only an OS crash can.
    file.pragma('synchronous = NORMAL');
    file.pragma('foreign_keys = ON');
    file.pragma('busy_timeout = 5000');
    db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: file }),
      plugins: [new CamelCasePlugin()],
    });
  }
  return {
    db,
    engine,
    async ping() {
      await sql`select 1`.execute(db);
    },
    migrate: () => migrateToLatest(db as unknown as Kysely<unknown>, engine),
    close: () => db.destroy(),
  };
}

/** True for a unique-constraint violation on either engine. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string } | null;
  return (
    e?.code === '23505' ||
    e?.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}
