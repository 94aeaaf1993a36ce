import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { CamelCasePlugin, Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preparedStatements } from '../src/store/pg-prepared';
import { cachedSqlite } from '../src/store/sqlite-cached';
import { createPgDatabase } from './support/bridge';

interface Db {
  items: { id: number; name: string };
}

describe('SQLite result cache', () => {
  let dir: string;
  let file: string;
  let db: Kysely<Db>;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-cache-'));
    file = path.join(dir, 'c.db');
    const raw = new SQLite(file);
    raw.pragma('journal_mode = WAL');
    db = new Kysely<Db>({
      dialect: new SqliteDialect({ database: cachedSqlite(raw) }),
      plugins: [new CamelCasePlugin()],
    });
    await sql`create table items (id integer primary key, name text not null)`.execute(db);
    await db.insertInto('items').values({ id: 1, name: 'one' }).execute();
  });
  afterAll(async () => {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const names = async () =>
    (await db.selectFrom('items').select('name').orderBy('id').execute()).map((r) => r.name);

  it('sees its own writes', async () => {
    expect(await names()).toEqual(['one']);
    await db.insertInto('items').values({ id: 2, name: 'two' }).execute();
    expect(await names()).toEqual(['one', 'two']);
  });

  it('sees a commit made by another connection (another process, like the CLI)', async () => {
    expect(await names()).toEqual(['one', 'two']);
    const other = new SQLite(file);
    other.prepare('update items set name = ? where id = 1').run('uno');
    other.close();
    expect(await names()).toEqual(['uno', 'two']);
  });

  it('forgets reads made inside a transaction that rolled back', async () => {
    await db
      .transaction()
      .execute(async (tx) => {
        await tx.insertInto('items').values({ id: 3, name: 'three' }).execute();
        expect((await tx.selectFrom('items').select('name').execute()).length).toBe(3);
        throw new Error('roll back');
      })
      .catch(() => {});
    expect(await names()).toEqual(['uno', 'two']);
  });

  it('never serves INSERT … RETURNING from the cache', async () => {
    const a = await db
      .insertInto('items')
      .values({ id: 4, name: 'four' })
      .returning('id')
      .execute();
    await db.deleteFrom('items').where('id', '=', 4).execute();
    const b = await db
      .insertInto('items')
      .values({ id: 4, name: 'four' })
      .returning('id')
      .execute();
    expect(a).toEqual([{ id: 4 }]);
    expect(b).toEqual([{ id: 4 }]);
    expect(await names()).toEqual(['uno', 'two', 'four']);
  });

  it('returns rows a caller may change without touching the next reader', async () => {
    const first = await db.selectFrom('items').selectAll().where('id', '=', 1).execute();
    first[0]!.name = 'mutated';
    const second = await db.selectFrom('items').selectAll().where('id', '=', 1).execute();
    expect(second[0]!.name).toBe('uno');
  });
});

describe('PostgreSQL prepared statements', () => {
  let database: Awaited<ReturnType<typeof createPgDatabase>>;
  let pool: pg.Pool;
  let db: Kysely<Db>;

  beforeAll(async () => {
    database = await createPgDatabase();
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
    db = new Kysely<Db>({ dialect: new PostgresDialect({ pool: preparedStatements(pool) }) });
    await sql`create table items (id integer primary key, name text not null)`.execute(db);
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  it('runs Kysely queries as named statements, parsed once per connection', async () => {
    for (let i = 0; i < 5; i++)
      await db
        .insertInto('items')
        .values({ id: i, name: `n${i}` })
        .execute();
    const rows = await db
      .selectFrom('items')
      .select('id')
      .where('id', '<', 3)
      .orderBy('id')
      .execute();
    expect(rows.map((r) => r.id)).toEqual([0, 1, 2]);
    // pg_prepared_statements is per session: ask on the connection that ran the select.
    await db.connection().execute(async (conn) => {
      await conn.selectFrom('items').select('id').execute();
      const prepared = await sql<{ n: number }>`
        select count(*)::int as n from pg_prepared_statements where name like 'bk\_%'`.execute(
        conn,
      );
      // The select above and this query itself, at least; none without the wrapper.
      expect(prepared.rows[0]!.n).toBeGreaterThanOrEqual(2);
    });
  });

  it('leaves callback-style queries from other users of the pool working', async () => {
    await db.selectFrom('items').select('id').execute(); // the clients are now wrapped
    const result = await new Promise<number>((resolve, reject) =>
      pool.query('select count(*)::int as n from items', [], (err, res) =>
        err ? reject(err) : resolve(res.rows[0].n),
      ),
    );
    expect(result).toBe(5);
  });
});
