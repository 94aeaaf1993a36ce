import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createPgDatabase } from '../../../test/support/bridge';
import { openStore, type Store } from '../../src/store/db';
import { migrationSql } from '../../src/store/migrations';

const MIGRATIONS_DIR = path.resolve(import.meta.dirname, '../../src/store/migrations');

/** Everything a migration can create, one line per object, in a stable order. */
async function sqliteSchema(store: Store): Promise<string> {
  const { rows } = await sql<{ type: string; name: string; sql: string | null }>`
    select type, name, sql from sqlite_master
    where name not like 'sqlite_%' and name not like 'kysely_%'
    order by type, name`.execute(store.db);
  return rows.map((r) => `-- ${r.type} ${r.name}\n${r.sql ?? ''};`).join('\n');
}

async function postgresSchema(store: Store): Promise<string> {
  const parts: string[] = [];
  const query = async (text: string) =>
    (await sql.raw<{ line: string }>(text).execute(store.db)).rows.map((r) => r.line);
  parts.push(
    ...(await query(`
      select format('column %s.%s %s%s%s%s', table_name, column_name, data_type,
        case when is_nullable = 'NO' then ' not null' else '' end,
        coalesce(' default ' || column_default, ''),
        coalesce(' collate ' || collation_name, '')) as line
      from information_schema.columns
      where table_schema = 'public' and table_name not like 'kysely_%'
      order by table_name, column_name`)),
    ...(await query(`
      select format('constraint %s.%s %s', c.conrelid::regclass, c.conname,
        pg_get_constraintdef(c.oid)) as line
      from pg_constraint c join pg_namespace n on n.oid = c.connamespace
      where n.nspname = 'public' and c.conrelid::regclass::text not like 'kysely_%'
      order by 1`)),
    ...(await query(`
      select indexdef as line from pg_indexes
      where schemaname = 'public' and tablename not like 'kysely_%' order by indexname`)),
    ...(await query(`
      select pg_get_triggerdef(t.oid) as line from pg_trigger t
      join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and not t.tgisinternal order by t.tgname`)),
    ...(await query(`
      select pg_get_functiondef(p.oid) as line from pg_proc p
      join pg_namespace n on n.oid = p.pronamespace
      where n.nspname = 'public' order by p.proname, pg_get_function_identity_arguments(p.oid)`)),
  );
  return parts.join('\n');
}

describe('migrations', () => {
  it('import nothing: what a fresh store gets cannot change when other code does', () => {
    const frozen = fs.readdirSync(MIGRATIONS_DIR).filter((f) => /^\d{4}-.*\.ts$/.test(f));
    expect(frozen.length).toBe(Object.keys(migrationSql('sqlite')).length);
    for (const file of frozen) {
      const text = fs.readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8');
      expect(text, file).not.toMatch(/^\s*import\b/m);
    }
  });

  it('have the same names, in the same order, on both dialects', () => {
    expect(Object.keys(migrationSql('postgres'))).toEqual(Object.keys(migrationSql('sqlite')));
    const names = Object.keys(migrationSql('sqlite'));
    expect(names).toEqual([...names].sort());
  });

  describe('replayed into an empty store give the checked-in schema', () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterAll(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
    });

    it('on SQLite', async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-schema-'));
      const store = openStore({ dataDir });
      cleanups.push(async () => {
        await store.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      });
      const applied = await store.migrate();
      expect(applied).toEqual(Object.keys(migrationSql('sqlite')));
      await expect(await sqliteSchema(store)).toMatchFileSnapshot(
        './__snapshots__/schema.sqlite.sql',
      );
    });

    it('on PostgreSQL', async () => {
      const database = await createPgDatabase();
      const store = openStore({ databaseUrl: database.url, dataDir: os.tmpdir(), poolSize: 1 });
      cleanups.push(async () => {
        await store.close();
        await database.drop();
      });
      const applied = await store.migrate();
      expect(applied).toEqual(Object.keys(migrationSql('postgres')));
      await expect(await postgresSchema(store)).toMatchFileSnapshot(
        './__snapshots__/schema.postgres.sql',
      );
    });
  });
});
