import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase, STORE_ENGINES } from '../../../test/support/bridge';
import { organizationRow } from '../../../test/support/store-rows';
import { engineOf, openStore, type Store } from '../../src/store/db';
import { findOrganizationById } from '../../src/store/organizations';
import { precompiled } from '../../src/store/precompiled';
import { startCheckpointer } from '../../src/store/sqlite-checkpointer';

describe.each(STORE_ENGINES)('hot-path store helpers on %s', (engine) => {
  let dataDir: string;
  let database: Awaited<ReturnType<typeof createPgDatabase>> | undefined;
  let store: Store;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-hot-'));
    database = engine === 'sqlite' ? undefined : await createPgDatabase(engine);
    store = openStore({ databaseUrl: database?.url, dataDir });
    await store.migrate();
    await store.db
      .insertInto('organizations')
      .values([organizationRow('org_a', 'A'), organizationRow('org_b', 'B')])
      .execute();
  });
  afterAll(async () => {
    await store.close();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('engineOf names the engine behind the handle and behind its transactions', async () => {
    const expected = engine === 'sqlite' ? 'sqlite' : 'postgres';
    expect(store.engine).toBe(expected);
    expect(engineOf(store.db)).toBe(expected);
    await store.db.transaction().execute(async (tx) => {
      expect(engineOf(tx)).toBe(expected);
    });
  });

  describe('precompiled', () => {
    const byName = precompiled((db, name: string, limit: number) =>
      db.selectFrom('organizations').select('id').where('name', '=', name).limit(limit),
    );

    it('runs with each call’s own arguments', async () => {
      expect(await byName(store.db, 'A', 5)).toEqual([{ id: 'org_a' }]);
      expect(await byName(store.db, 'B', 5)).toEqual([{ id: 'org_b' }]);
      expect(await byName(store.db, 'B', 0)).toEqual([]);
      expect((await findOrganizationById(store.db, 'org_b'))?.name).toBe('B');
      expect(await findOrganizationById(store.db, 'org_none')).toBeUndefined();
    });

    it('works inside a transaction, which sees its own writes', async () => {
      await store.db.transaction().execute(async (tx) => {
        await tx
          .updateTable('organizations')
          .set({ name: 'B2' })
          .where('id', '=', 'org_b')
          .execute();
        expect(await byName(tx, 'B2', 5)).toEqual([{ id: 'org_b' }]);
      });
      expect(await byName(store.db, 'B2', 5)).toEqual([{ id: 'org_b' }]);
    });

    it('reads the same row, with the same camelCase keys, as the query builder', async () => {
      const viaBuilder = await store.db
        .selectFrom('organizations')
        .selectAll()
        .where('id', '=', 'org_a')
        .executeTakeFirst();
      expect(await findOrganizationById(store.db, 'org_a')).toEqual(viaBuilder);
      expect(Object.keys(viaBuilder ?? {})).toContain('jwtSecretSealed');
    });

    it('never shows another request’s uncommitted write, even on one SQLite connection', async () => {
      let outside: Promise<unknown> | undefined;
      await store.db
        .transaction()
        .execute(async (tx) => {
          await tx
            .updateTable('organizations')
            .set({ name: 'Uncommitted' })
            .where('id', '=', 'org_a')
            .execute();
          outside = findOrganizationById(store.db, 'org_a');
          await new Promise((r) => setTimeout(r, 20));
          throw new Error('roll back');
        })
        .catch(() => {});
      expect(((await outside) as { name: string }).name).toBe('A');
    });

    it('refuses a query that does not use every argument as a parameter', async () => {
      const careless = precompiled((db, _unused: string) =>
        db.selectFrom('organizations').select('id'),
      );
      await expect(careless(store.db, 'x')).rejects.toThrow('every argument must be a parameter');
    });
  });
});

describe('SQLite checkpoints in a worker', () => {
  let dir: string;
  let file: string;
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const walBytes = () => fs.statSync(`${file}-wal`).size;

  it('copies the WAL into the database while the writer never checkpoints itself', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-ckpt-'));
    file = path.join(dir, 'c.db');
    const writer = new SQLite(file);
    writer.pragma('journal_mode = WAL');
    writer.pragma('wal_autocheckpoint = 0');
    writer.exec('create table t (id integer primary key, v text not null)');
    const dataVersion = writer.prepare('PRAGMA data_version').pluck();
    const errors: string[] = [];
    const checkpointer = startCheckpointer(file, { everyMs: 20, onError: (m) => errors.push(m) });
    try {
      const insert = writer.prepare('insert into t (v) values (?)');
      for (let i = 0; i < 2000; i++) insert.run('x'.repeat(200));
      const versionBefore = dataVersion.get();
      expect(walBytes()).toBeGreaterThan(400_000);
      // The rows live in the WAL until a checkpoint copies them into the database file.
      for (let i = 0; i < 150 && fs.statSync(file).size < 400_000; i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(fs.statSync(file).size).toBeGreaterThan(400_000);
      expect(writer.prepare('select count(*) from t').pluck().get()).toBe(2000);
      expect(errors).toEqual([]);
      // A checkpoint is not a commit: caches keyed on data_version stay valid.
      expect(dataVersion.get()).toBe(versionBefore);
    } finally {
      await checkpointer.close();
      writer.close();
    }
  });

  it('reports a database it cannot open, and closes cleanly', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-ckpt-'));
    file = path.join(dir, 'missing.db');
    const errors: string[] = [];
    const checkpointer = startCheckpointer(file, { onError: (m) => errors.push(m) });
    await checkpointer.close();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`cannot open ${file}`);
  });
});
