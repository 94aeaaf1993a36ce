import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { CamelCasePlugin, Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase } from '../../../test/support/bridge';
import { findApiKeyCountingHit } from '../../src/store/api-keys';
import { ALSO_CHANGES } from '../../src/store/cache-tags';
import { openStore, type Store } from '../../src/store/db';
import { addMemberships } from '../../src/store/members';
import { VERSIONED_TABLES } from '../../src/store/migrations';
import { preparedStatements } from '../../src/store/pg-prepared';
import { cachedSqlite } from '../../src/store/sqlite-cached';
import { ImmediateSqliteDialect } from '../../src/store/sqlite-immediate';
import { takeWriteLock } from '../../src/store/write-lock';

/** Lets the event loop turn: what another process commits reaches a server between turns. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

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
      dialect: new ImmediateSqliteDialect(cachedSqlite(raw), () => raw.inTransaction),
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
    // As another process's commit reaches a server: never in the middle of a turn.
    await nextTurn();
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

describe('SQLite result cache, by table', () => {
  interface Two {
    a: { id: number; v: string };
    b: { id: number; v: string };
    c: { id: number; a_id: number };
  }
  let dir: string;
  let raw: SQLite.Database;
  let cache: ReturnType<typeof cachedSqlite>;
  let db: Kysely<Two>;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-cache-'));
    raw = new SQLite(path.join(dir, 't.db'));
    raw.pragma('journal_mode = WAL');
    cache = cachedSqlite(raw);
    db = new Kysely<Two>({ dialect: new ImmediateSqliteDialect(cache, () => raw.inTransaction) });
    await sql`create table a (id integer primary key, v text not null)`.execute(db);
    await sql`create table b (id integer primary key, v text not null)`.execute(db);
    // c references a, so a DELETE from a may cascade; nothing references b or c.
    await sql`create table c (id integer primary key, a_id integer references a(id) on delete cascade)`.execute(
      db,
    );
    await db.insertInto('a').values({ id: 1, v: 'a1' }).execute();
    await sql`insert into c (id, a_id) values (1, 1)`.execute(db);
    await db.insertInto('b').values({ id: 1, v: 'b1' }).execute();
  });
  afterAll(async () => {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const bValue = async () =>
    (await db.selectFrom('b').select('v').where('id', '=', 1).executeTakeFirstOrThrow()).v;
  // A write the cache can't see: same connection (so data_version does not move), not through
  // it. What a read returns afterwards tells whether it came from the cache.
  const sneak = (v: string) => raw.prepare('update b set v = ? where id = 1').run(v);

  it('keeps serving reads of a table that writes to another table leave alone', async () => {
    expect(await bValue()).toBe('b1');
    sneak('b-sneaked');
    expect(await bValue()).toBe('b1'); // from the cache
    await db.updateTable('a').set({ v: 'a2' }).where('id', '=', 1).execute();
    await db.insertInto('a').values({ id: 2, v: 'a3' }).execute();
    expect(await bValue()).toBe('b1'); // writes to a leave b's results alone
  });

  it('drops them on a write to that table', async () => {
    await db.insertInto('b').values({ id: 2, v: 'b2' }).execute();
    expect(await bValue()).toBe('b-sneaked');
  });

  it('drops the results of tables that follow by a cascading foreign key, and no others', async () => {
    expect(await bValue()).toBe('b-sneaked');
    const cRows = () => db.selectFrom('c').select('id').execute();
    expect(await cRows()).toEqual([{ id: 1 }]);
    sneak('b-after-delete');
    await db.deleteFrom('a').where('id', '=', 1).execute(); // cascades to c
    expect(await cRows()).toEqual([]);
    expect(await bValue()).toBe('b-sneaked'); // b follows nothing: its results stay
  });

  it('drops only its own results on a write to a table nothing references', async () => {
    await db.insertInto('a').values({ id: 1, v: 'a1' }).execute();
    await sql`insert into c (id, a_id) values (1, 1)`.execute(db);
    const aValue = async () =>
      (await db.selectFrom('a').select('v').where('id', '=', 1).executeTakeFirstOrThrow()).v;
    expect(await aValue()).toBe('a1');
    raw.prepare("update a set v = 'a-sneaked' where id = 1").run();
    await db.deleteFrom('c').where('id', '=', 1).execute();
    expect(await aValue()).toBe('a1'); // c is a leaf: a's results stay
    await db.deleteFrom('b').where('id', '=', 2).execute();
    expect(await bValue()).toBe('b-after-delete');
  });

  it('does not cache a read holding raw SQL, whose tables it cannot know', async () => {
    const rawRead = async () =>
      (await sql<{ v: string }>`select v from b where id = 1`.execute(db)).rows[0]!.v;
    expect(await rawRead()).toBe('b-after-delete');
    sneak('b-raw');
    expect(await rawRead()).toBe('b-raw');
  });

  it('moves every tag on a write holding raw SQL', async () => {
    const ofA = cache.version(['a']);
    await sql`update c set a_id = a_id where 0`.execute(db);
    expect(cache.version(['a'])).not.toBe(ofA);
    expect(await bValue()).toBe('b-raw');
  });

  it('moves version(tables) only for writes to those tables', async () => {
    const ofA = cache.version(['a']);
    const ofB = cache.version(['b']);
    await db.updateTable('b').set({ v: 'b3' }).where('id', '=', 1).execute();
    expect(cache.version(['a'])).toBe(ofA);
    expect(cache.version(['b'])).not.toBe(ofB);
    expect(cache.version(['a', 'b'])).not.toBe(ofA + ofB);
  });

  it('moves every version when another connection commits', async () => {
    const before = cache.version(['a']);
    const other = new SQLite(path.join(dir, 't.db'));
    other.prepare('update b set v = ? where id = 1').run('elsewhere');
    other.close();
    await nextTurn();
    expect(cache.version(['a'])).not.toBe(before);
    expect(await bValue()).toBe('elsewhere');
  });

  it("looks for other connections' commits once per turn, and again after any statement runs", async () => {
    await nextTurn();
    expect(await bValue()).toBe('elsewhere');
    const other = new SQLite(path.join(dir, 't.db'));
    try {
      // A commit in the middle of a turn, with no statement run since the last look: this
      // turn's reads still answer as of that look (no request of this turn can have waited
      // for the commit, and nothing read has shown it yet).
      const before = cache.version(['b']);
      other.prepare('update b set v = ? where id = 1').run('mid-turn');
      expect(cache.version(['b'])).toBe(before);
      expect(await bValue()).toBe('elsewhere');
      // A statement that runs may see the commit: every read after it looks again, so no
      // read goes back to what was before.
      cache.read('select v from b where id = ?', [2], ['b']);
      expect(cache.version(['b'])).not.toBe(before);
      expect(await bValue()).toBe('mid-turn');
      // The next turn looks again too.
      const seen = cache.version(['b']);
      other.prepare('update b set v = ? where id = 1').run('next-turn');
      await nextTurn();
      expect(cache.version(['b'])).not.toBe(seen);
      expect(await bValue()).toBe('next-turn');
    } finally {
      other.close();
    }
  });

  it('moves every version on a rollback', async () => {
    const before = cache.version(['a']);
    await db
      .transaction()
      .execute(async (tx) => {
        await tx.insertInto('b').values({ id: 9, v: 'gone' }).execute();
        throw new Error('roll back');
      })
      .catch(() => {});
    expect(cache.version(['a'])).not.toBe(before);
  });

  it('serves read() only for read-only statements', () => {
    expect(cache.read('select v from b where id = ?', [1], ['b'])).toEqual([{ v: 'next-turn' }]);
    expect(() =>
      cache.read('insert into b (id, v) values (?, ?) returning id', [5, 'x'], ['b']),
    ).toThrow('read() takes read-only statements');
  });
});

describe("SQLite result cache tags of the bridge's schema", () => {
  let dir: string;
  let store: Store;
  let tables: string[];
  let file: SQLite.Database;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-tags-'));
    store = openStore({ dataDir: dir });
    await store.migrate();
    file = new SQLite(path.join(dir, 'bridge.db'), { readonly: true });
    tables = (
      file
        .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'")
        .pluck()
        .all() as string[]
    ).filter((t) => !t.startsWith('kysely_'));
  });
  afterAll(async () => {
    file.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Tables whose rows a write to `table` may change: itself, by trigger, by cascade. */
  const follows = (table: string): Set<string> => {
    const all = new Set<string>([table]);
    for (const t of ALSO_CHANGES[table] ?? []) for (const f of follows(t)) all.add(f);
    const children = file
      .prepare(
        `select m.name from sqlite_master m, pragma_foreign_key_list(m.name) f
         where m.type = 'table' and f."table" = ? and f.on_delete = 'CASCADE'`,
      )
      .pluck()
      .all(table) as string[];
    for (const child of children) for (const f of follows(child)) all.add(f);
    return all;
  };

  it('moves the tag of each table, and of the tables that follow it, on a write to it, and no other', async () => {
    expect(tables).toEqual(expect.arrayContaining(['organizations', 'embed_origin_patterns']));
    for (const table of tables) {
      const before = new Map<string, string>();
      for (const t of tables) before.set(t, await store.version([t as never]));
      // A write to `table` that changes no row: the tags move by what it names.
      await store.db
        .deleteFrom(table as never)
        .where('rowid' as never, '=', -1 as never)
        .execute();
      const changed = follows(table);
      const moved = [];
      for (const t of tables) {
        if ((await store.version([t as never])) !== before.get(t)) moved.push(t);
      }
      expect({ table, moved: moved.sort() }).toEqual({ table, moved: [...changed].sort() });
    }
  });

  /** The tables whose tag `write` moves. */
  const movedBy = async (write: () => Promise<unknown>) => {
    const before = new Map<string, string>();
    for (const t of tables) before.set(t, await store.version([t as never]));
    await write();
    const moved = [];
    for (const t of tables) {
      if ((await store.version([t as never])) !== before.get(t)) moved.push(t);
    }
    return moved.sort();
  };

  it('moves no tag for a transaction that changes no row (BEGIN IMMEDIATE takes the lock only)', async () => {
    expect(await movedBy(() => store.db.transaction().execute(async () => undefined))).toEqual([]);
  });

  it('moves only the tags of users, members and what follows them when memberships are added (raw SQL, tables declared)', async () => {
    const at = new Date().toISOString();
    const moved = await movedBy(() =>
      addMemberships(store.db, [
        {
          user: { id: 'usr_tagged', email: 'tagged@example.com', createdAt: at },
          member: {
            id: 'mem_tagged',
            organizationId: 'org_none',
            role: 'MEMBER',
            groups: null,
            createdAt: at,
          },
        },
      ]),
    );
    expect(moved).toEqual([...new Set([...follows('users'), ...follows('members')])].sort());
    expect(moved).not.toContain('organizations');
  });

  it('declares what every trigger of the schema writes beside its own table', () => {
    const triggers = file
      .prepare('select tbl_name as "table", sql from sqlite_master where type = \'trigger\'')
      .all() as { table: string; sql: string }[];
    expect(triggers.length).toBeGreaterThan(0);
    for (const { table, sql: text } of triggers) {
      const declared = ALSO_CHANGES[table] ?? [];
      expect(declared.length).toBeGreaterThan(0);
      for (const t of declared) expect(text).toContain(t);
    }
  });
});

/**
 * A fresh table `t (id, g, v)` with one row per entry of `groups` (its `g`, `v` = 'old'), a
 * cache over it, and `group(g)`: the `v`s of group g read through the cache. `raw` writes
 * unseen by the cache (same connection, not through it).
 */
function withGroups(
  groups: number[],
  maxRows: number,
  run: (group: (g: number) => string[], raw: SQLite.Database) => void,
) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-cache-'));
  const raw = new SQLite(path.join(dir, 'b.db'));
  try {
    raw.exec('create table t (id integer primary key, g integer not null, v text not null)');
    const insert = raw.prepare('insert into t (g, v) values (?, ?)');
    for (const g of groups) insert.run(g, 'old');
    const cache = cachedSqlite(raw, { maxRows });
    run(
      (g) =>
        (
          cache.read('select v from t where g = ? order by id', [g], ['t']) as Array<{ v: string }>
        ).map((r) => r.v),
      raw,
    );
  } finally {
    raw.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('SQLite result cache bounds', () => {
  it('keeps at most maxRows rows in all, dropping the least recently used results first', () => {
    const groups = Array.from({ length: 10 }, (_, i) => i % 5);
    withGroups(groups, 9, (group, raw) => {
      for (let g = 0; g < 4; g++) expect(group(g)).toEqual(['old', 'old']);
      raw.prepare("update t set v = 'new'").run();
      expect(group(0)).toEqual(['old', 'old']); // still cached, and now the most recently used
      expect(group(4)).toEqual(['new', 'new']); // 5 × 2 rows > 9: group 1, the least recent, goes
      expect(group(1)).toEqual(['new', 'new']); // read again (and group 2 goes for it)
      expect(group(0)).toEqual(['old', 'old']); // still cached
      expect(group(3)).toEqual(['old', 'old']); // still cached
      expect(group(2)).toEqual(['new', 'new']);
    });
  });
});

describe('SQLite result cache, large results', () => {
  it('does not keep a result of more than a quarter of maxRows, nor drop others for it', () => {
    withGroups([0, 0, 1, 1, 1], 8, (group, raw) => {
      expect(group(0)).toEqual(['old', 'old']); // 2 rows: kept
      expect(group(1)).toEqual(['old', 'old', 'old']); // 3 rows > 8 / 4: read, not kept
      raw.prepare("update t set v = 'new'").run();
      expect(group(0)).toEqual(['old', 'old']); // still cached
      expect(group(1)).toEqual(['new', 'new', 'new']); // read again
    });
  });
});

describe('PostgreSQL store version', () => {
  let database: Awaited<ReturnType<typeof createPgDatabase>>;
  let store: Store;
  let client: pg.Client;

  beforeAll(async () => {
    database = await createPgDatabase();
    store = openStore({ databaseUrl: database.url, dataDir: os.tmpdir() });
    await store.migrate();
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  });
  afterAll(async () => {
    await client.end();
    await store.close();
    await database.drop();
  });

  const now = new Date().toISOString();

  it.each([
    [
      'users',
      `insert into users (id, email, created_at) values ('usr_v1', 'v1@example.com', '${now}')`,
    ],
    [
      'organizations',
      `insert into organizations (id, name, slug, onboarding_status, full_embed_enabled, embed_allowed_origins, jwt_secret_sealed, created_at, updated_at)
       values ('org_v1', 'V', 'v', 'STARTED', 0, '[]', 'x', '${now}', '${now}')`,
    ],
    [
      'members',
      `insert into members (id, organization_id, user_id, role, created_at) values ('mem_v1', 'org_v1', 'usr_v1', 'ADMIN', '${now}')`,
    ],
    ['organizations', `update organizations set name = 'W' where id = 'org_v1'`],
    ['members', `delete from members where id = 'mem_v1'`],
  ] as const)(
    'moves when another connection writes to %s, and only for that table',
    async (table, statement) => {
      const others = VERSIONED_TABLES.filter((t) => t !== table);
      const before = await store.version([table]);
      const othersBefore = await Promise.all(others.map((t) => store.version([t])));
      const listBefore = await store.version(['organizations', 'members']);
      await client.query(statement);
      expect(await store.version([table])).not.toBe(before);
      expect(await Promise.all(others.map((t) => store.version([t])))).toEqual(othersBefore);
      if (table !== 'users') {
        expect(await store.version(['organizations', 'members'])).not.toBe(listBefore);
      }
    },
  );

  it('lets writers in different store-version rows run at once, and the write lock stop them all', async () => {
    const clients = [client, new pg.Client({ connectionString: database.url })];
    await clients[1]!.connect();
    const slot = async (c: pg.Client) =>
      Number((await c.query('select txid_current() % 16 as s')).rows[0].s);
    try {
      // Two transactions whose ids pick different rows: neither waits for the other.
      await clients[0]!.query('begin');
      const first = await slot(clients[0]!);
      for (;;) {
        await clients[1]!.query('begin');
        if ((await slot(clients[1]!)) !== first) break;
        await clients[1]!.query('rollback');
      }
      for (const [i, c] of clients.entries()) {
        await c.query(`set local lock_timeout = '2s'`);
        await c.query(
          `insert into users (id, email, created_at) values ('usr_par${i}', 'par${i}@example.com', '${now}')`,
        );
      }
      for (const c of clients) await c.query('commit');

      // The write lock (every row, in order) holds back a writer until it ends.
      await store.db.transaction().execute(async (tx) => {
        await takeWriteLock(tx, 'postgres');
        await clients[1]!.query(`set lock_timeout = '300ms'`);
        await expect(
          clients[1]!.query(
            `insert into users (id, email, created_at) values ('usr_wait', 'wait@example.com', '${now}')`,
          ),
        ).rejects.toMatchObject({ code: '55P03' });
      });
      await clients[1]!.query(
        `insert into users (id, email, created_at) values ('usr_wait', 'wait@example.com', '${now}')`,
      );
    } finally {
      await client.query('rollback');
      await clients[1]!.end();
    }
  });

  it('keeps the old store_version for an instance of the previous version: the sum, moving with writes', async () => {
    const read = async () =>
      (await client.query('select version::text as v from store_version where id = 1')).rows[0].v;
    const before = await read();
    await client.query(`update organizations set name = 'Old' where id = 'org_v1'`);
    expect(BigInt(await read())).toBeGreaterThan(BigInt(before));
    // Its write lock (an update of the view) still takes every row.
    await client.query('begin');
    await client.query('update store_version set version = version + 1 where id = 1');
    const other = new pg.Client({ connectionString: database.url });
    await other.connect();
    try {
      await other.query(`set lock_timeout = '300ms'`);
      await expect(
        other.query(`update organizations set name = 'Other' where id = 'org_v1'`),
      ).rejects.toMatchObject({ code: '55P03' });
    } finally {
      await client.query('rollback');
      await other.end();
    }
  });

  it('stays put for writes to tables no cache reads (jti, rate limits, API keys)', async () => {
    const before = await store.version(['organizations']);
    await client.query(
      `insert into sso_jti (organization_id, jti, expires_at) values ('org_v1', 'j1', '${now}')`,
    );
    await client.query(`insert into rate_limits (key, points, expire) values ('k', 1, 1)`);
    await client.query(
      `insert into api_keys (id, user_id, key_hash, hint, created_at) values ('key_v1', 'usr_v1', 'h1', 'abcd', '${now}')`,
    );
    await client.query(`update api_keys set last_used_at = '${now}' where id = 'key_v1'`);
    expect(await store.version(['organizations'])).toBe(before);
  });

  it('does not move for a transaction that rolled back', async () => {
    const before = await store.version(['organizations']);
    await client.query('begin');
    await client.query(`update organizations set name = 'X' where id = 'org_v1'`);
    await client.query('rollback');
    expect(await store.version(['organizations'])).toBe(before);
  });

  it('rides along with the API-key lookup, which also counts the rate-limit hit', async () => {
    const counter = { keyPrefix: 'bk:test:', windowMs: 60_000 };
    const [first] = await findApiKeyCountingHit(store.pgPool!, 'h1', counter, 1, new Date());
    const [second] = await findApiKeyCountingHit(store.pgPool!, 'h1', counter, 1, new Date());
    expect(first).toMatchObject({ id: 'key_v1', userId: 'usr_v1', hitPoints: 1 });
    expect(second?.hitPoints).toBe(2);
    expect(second?.storeVersion).toBe(await store.version(['organizations', 'members']));
    const row = await client.query(`select points from rate_limits where key = 'bk:test:key_v1'`);
    expect(row.rows).toEqual([{ points: 2 }]);
    // A new window once the last one has expired.
    const later = new Date(Date.now() + 61_000);
    const [again] = await findApiKeyCountingHit(store.pgPool!, 'h1', counter, 1, later);
    expect(again?.hitPoints).toBe(1);
  });

  it('counts several hits in one statement, each row in its own place in the count', async () => {
    const counter = { keyPrefix: 'bk:test3:', windowMs: 60_000 };
    const found = await findApiKeyCountingHit(store.pgPool!, 'h1', counter, 8, new Date());
    expect(found.map((r) => r.hitPoints)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    for (const r of found) expect(r).toMatchObject({ id: 'key_v1', userId: 'usr_v1' });
    const row = await client.query(`select points from rate_limits where key = 'bk:test3:key_v1'`);
    expect(row.rows).toEqual([{ points: 8 }]);
  });

  it('counts no hit for a revoked or expired key, and finds nothing for an unknown one', async () => {
    const counter = { keyPrefix: 'bk:test2:', windowMs: 60_000 };
    await client.query(`update api_keys set revoked_at = '${now}' where id = 'key_v1'`);
    const [revoked] = await findApiKeyCountingHit(store.pgPool!, 'h1', counter, 1, new Date());
    expect(revoked).toMatchObject({ id: 'key_v1', revokedAt: now, hitPoints: null });
    await client.query(
      `update api_keys set revoked_at = null, expires_at = '${now}' where id = 'key_v1'`,
    );
    const [expired] = await findApiKeyCountingHit(store.pgPool!, 'h1', counter, 1, new Date());
    expect(expired?.hitPoints).toBeNull();
    expect(await findApiKeyCountingHit(store.pgPool!, 'nope', counter, 1, new Date())).toEqual([]);
    const rows = await client.query(`select key from rate_limits where key like 'bk:test2:%'`);
    expect(rows.rows).toEqual([]);
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
