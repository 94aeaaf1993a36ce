import fs from 'node:fs';
import SQLite from 'better-sqlite3';
import { CamelCasePlugin, Kysely, PostgresAdapter, PostgresDialect, sql } from 'kysely';
import type Pg from 'pg';
import { lazy } from '../lazy';
import { gathered } from './gathered';
import { sqliteFile } from './location';
import {
  type InLockStep,
  migrateToLatest,
  PostgresXactLockAdapter,
  type VERSIONED_TABLES,
} from './migrations';
import { preparedStatements, statementNameOn } from './pg-prepared';
import {
  DEFAULT_PG_TIMEOUTS,
  dropOnQueryTimeout,
  type PgTimeouts,
  pgTimeoutOptions,
} from './pg-timeouts';
import { registerRawReader } from './precompiled';
import type { Database, Db } from './schema';
import { cachedSqlite } from './sqlite-cached';
import { type Checkpointer, startCheckpointer } from './sqlite-checkpointer';
import { ImmediateSqliteDialect } from './sqlite-immediate';
import { versionReads } from './version-reads';

const pgModule = lazy<typeof Pg>('pg');

export type { Db };
export type Engine = 'sqlite' | 'postgres';
export type VersionedTable = (typeof VERSIONED_TABLES)[number];

export interface Store {
  db: Db;
  engine: Engine;
  /** The raw pool on PostgreSQL (for libraries that keep their own tables), else undefined. */
  pgPool: Pg.Pool | undefined;
  /** Resolves when the store answers a trivial query. */
  ping(): Promise<void>;
  /**
   * A value that changes whenever a committed write (from any process) may have changed one of
   * `tables`: something built from their rows can be cached under it, exactly. On PostgreSQL
   * it is the sum of each table's counters in `store_versions` (migration 0009). With `since`
   * (a `performance.now()` reading: when the caller's work began), a version read by any
   * statement sent after that moment will do (see version-reads.ts).
   */
  version(tables: readonly VersionedTable[], since?: number): Promise<string>;
  /**
   * Applies pending migrations, then `inLock` (PostgreSQL: in the same transaction, under the
   * migration lock); returns what was applied, in order.
   */
  migrate(inLock?: InLockStep[]): Promise<string[]>;
  /**
   * SQLite only: writes a consistent copy of the store to `file` (which must not exist) while
   * others keep writing (`VACUUM INTO`: one read transaction), checked before it returns.
   */
  backup?(file: string): Promise<{ bytes: number }>;
  close(): Promise<void>;
}

export interface StoreOptions {
  databaseUrl?: string | undefined;
  dataDir: string;
  /** Pool size for PostgreSQL. */
  poolSize?: number;
  /** PostgreSQL statements: unnamed (the default, safe behind any pooler) or named. */
  prepared?: 'unnamed' | 'named';
  /** PostgreSQL without a pooler: migrations take it when set (`DATABASE_DIRECT_URL`). */
  directUrl?: string | undefined;
  /**
   * SQLite: checkpoint the WAL from a worker thread (the server does; the CLI and most tests
   * keep SQLite's automatic checkpoints on their one connection).
   */
  checkpointInWorker?: { onError(message: string): void };
  /** PostgreSQL's bounded waits (default DEFAULT_PG_TIMEOUTS). */
  pgTimeouts?: PgTimeouts;
}

/**
 * The PostgreSQL store version of `tables` (migration 0009: each table's counter summed over
 * the rows), as text: the sums do not fit a JS number.
 */
export function storeVersionSql(tables: readonly VersionedTable[]): string {
  const sums = [...new Set(tables)].sort().map((t) => `coalesce(sum(${t}), 0)`);
  return `select concat_ws('.', ${sums.join(', ')}) as "version" from store_versions`;
}

/** What each engine provides; openStore adds what both share. */
type EngineParts = Pick<Store, 'db' | 'pgPool' | 'version' | 'backup'> & {
  checkpointer?: Checkpointer;
};

/** Kysely's PostgreSQL dialect with a migration lock that holds through a transaction pooler. */
class BridgePostgresDialect extends PostgresDialect {
  override createAdapter() {
    return new PostgresXactLockAdapter();
  }
}

function openPostgres(
  databaseUrl: string,
  poolSize: number,
  prepared: 'unnamed' | 'named',
  timeouts: PgTimeouts,
): EngineParts {
  const pool = new (pgModule().Pool)({
    connectionString: databaseUrl,
    max: poolSize,
    idleTimeoutMillis: 30_000,
    // Bounded waits: a store down or hung gets a request its 503 in seconds.
    ...pgTimeoutOptions(timeouts),
  });
  // A broken idle connection must not crash the process; the next query reports it.
  pool.on('error', () => {});
  // pg-pool listens for errors only on idle clients: a checked-out one that the server drops
  // between two queries (shutdown, restart) would emit an unhandled 'error' and kill the
  // process. Its pending queries fail anyway, and the pool discards it on release.
  pool.on('connect', (client) => {
    client.on('error', () => {});
    dropOnQueryTimeout(client);
  });
  const db = new Kysely<Database>({
    dialect: new BridgePostgresDialect({
      pool: prepared === 'named' ? preparedStatements(pool) : pool,
    }),
    plugins: [new CamelCasePlugin()],
  });
  // Precompiled reads (and the version) go straight to the driver.
  const rawRead = async (text: string, params: readonly unknown[]) =>
    (
      await pool.query({
        name: statementNameOn(pool, text),
        text,
        values: params as unknown[],
      })
    ).rows;
  registerRawReader(db, rawRead);
  // Gathered by statement: while one version read is in flight, the callers arriving meanwhile
  // share the next one, which is sent after they arrived (so none gets an older version than
  // its own arrival).
  const readVersion = gathered(
    async (sqlText: string, batch: { resolve(v: string): void; reject(e: unknown): void }[]) => {
      try {
        const sentAt = performance.now();
        const [row] = await rawRead(sqlText, []);
        const version = (row?.version as string | undefined) ?? '';
        versionReads(pool).note(sqlText, sentAt, version);
        for (const c of batch) c.resolve(version);
      } catch (err) {
        for (const c of batch) c.reject(err);
      }
    },
  );
  return {
    db,
    pgPool: pool,
    version: (tables, since) => {
      const sqlText = storeVersionSql(tables);
      const known = since === undefined ? undefined : versionReads(pool).after(sqlText, since);
      if (known !== undefined) return Promise.resolve(known);
      return new Promise((resolve, reject) => readVersion(sqlText, { resolve, reject }));
    },
    backup: undefined,
  };
}

function openSqlite(
  dataDir: string,
  checkpointInWorker: StoreOptions['checkpointInWorker'],
): EngineParts {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = new SQLite(sqliteFile(dataDir));
  file.pragma('journal_mode = WAL');
  // NORMAL in WAL mode loses nothing when the process dies; only an OS crash can.
  file.pragma('synchronous = NORMAL');
  file.pragma('foreign_keys = ON');
  file.pragma('busy_timeout = 5000');
  let checkpointer: Checkpointer | undefined;
  if (checkpointInWorker) {
    // The worker keeps the WAL short; this connection only checkpoints if it gets long
    // (~40 MB), which it would only do with the worker stopped or far behind.
    file.pragma('wal_autocheckpoint = 10000');
    checkpointer = startCheckpointer(file.name, checkpointInWorker);
  }
  const cached = cachedSqlite(file);
  const db = new Kysely<Database>({
    dialect: new ImmediateSqliteDialect(cached, () => file.inTransaction),
    plugins: [new CamelCasePlugin()],
  });
  // Inside another request's transaction (between its awaits) the one connection would show
  // its uncommitted writes: precompiled reads then wait their turn through Kysely's mutex.
  // A read whose tables are not known is not cached, so it goes through Kysely too.
  registerRawReader(db, (sqlText, params, tables) =>
    file.inTransaction || !tables
      ? undefined
      : Promise.resolve(cached.read(sqlText, params, tables) as readonly Record<string, unknown>[]),
  );
  return {
    db,
    pgPool: undefined,
    version: async (tables) => String(cached.version(tables)),
    backup: async (target) => {
      if (fs.existsSync(target)) throw new Error(`${target} already exists`);
      file.prepare('vacuum into ?').run(target);
      const copy = new SQLite(target, { readonly: true });
      try {
        const [check] = copy.pragma('quick_check') as { quick_check: string }[];
        if (check?.quick_check !== 'ok')
          throw new Error(`the copy failed its check: ${check?.quick_check}`);
      } finally {
        copy.close();
      }
      return { bytes: fs.statSync(target).size };
    },
    checkpointer,
  };
}

/** How long one migration statement (the lock wait among them) may take. */
const MIGRATION_STATEMENT_MS = 120_000;

/** The engine behind a handle (a transaction's too), for SQL that only one of them runs. */
export const engineOf = (db: Db): Engine =>
  db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';

/** Opens SQLite in `dataDir/bridge.db` (WAL), or PostgreSQL when `databaseUrl` is set. */
export function openStore(options: StoreOptions): Store {
  const engine: Engine = options.databaseUrl ? 'postgres' : 'sqlite';
  const pgTimeouts = options.pgTimeouts ?? DEFAULT_PG_TIMEOUTS;
  const { checkpointer, ...parts } = options.databaseUrl
    ? openPostgres(
        options.databaseUrl,
        options.poolSize ?? 10,
        options.prepared ?? 'unnamed',
        pgTimeouts,
      )
    : openSqlite(options.dataDir, options.checkpointInWorker);
  const { db } = parts;
  const migrationUrl = options.directUrl ?? options.databaseUrl;
  // Migrations wait at the lock while another instance migrates, and a multi-statement step
  // can't run as a named statement: one unnamed connection of their own, with a longer bound.
  const migrationTimeouts = {
    ...pgTimeouts,
    statementMs: Math.max(pgTimeouts.statementMs, MIGRATION_STATEMENT_MS),
  };
  return {
    ...parts,
    engine,
    async ping() {
      await sql`select 1`.execute(db);
    },
    async migrate(inLock = []) {
      if (engine === 'sqlite' || !migrationUrl) {
        return migrateToLatest(db as unknown as Kysely<unknown>, engine, inLock);
      }
      const direct = openPostgres(migrationUrl, 1, 'unnamed', migrationTimeouts).db;
      try {
        return await migrateToLatest(direct as unknown as Kysely<unknown>, engine, inLock);
      } finally {
        await direct.destroy();
      }
    },
    async close() {
      await checkpointer?.close();
      await db.destroy();
    },
  };
}

/**
 * True when PostgreSQL refused text it can't store (U+0000: 22021; untranslatable: 22P05). Input
 * validation refuses U+0000 first; this is the net for any path it does not cover.
 */
export function isUnstorableText(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '22021' || code === '22P05';
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
