import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase } from '../../../test/support/bridge';
import { openStore } from '../../src/store/db';

const tables = async (url: string) => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      "select tablename from pg_tables where schemaname = 'public' order by tablename",
    );
    return rows.map((r) => r.tablename as string);
  } finally {
    await client.end();
  }
};

describe('migrations with a direct URL (DATABASE_DIRECT_URL)', () => {
  let pooled: Awaited<ReturnType<typeof createPgDatabase>>;
  let direct: Awaited<ReturnType<typeof createPgDatabase>>;
  let dataDir: string;

  beforeAll(async () => {
    pooled = await createPgDatabase();
    direct = await createPgDatabase();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-direct-'));
  });
  afterAll(async () => {
    await pooled?.drop();
    await direct?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('run on the direct URL, not on the pooled one, and close their connection', async () => {
    // Two databases stand for "through the pooler" and "past it", so where they ran shows.
    const store = openStore({ databaseUrl: pooled.url, directUrl: direct.url, dataDir });
    try {
      const applied = await store.migrate();
      expect(applied).toContain('0001_initial');
      expect(await tables(direct.url)).toContain('kysely_migration');
      expect(await tables(direct.url)).toContain('organizations');
      expect(await tables(pooled.url)).toEqual([]);
      // Nothing left open on the direct database once migrate() returned.
      const client = new pg.Client({ connectionString: direct.url });
      await client.connect();
      const { rows } = await client.query(
        'select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
      );
      await client.end();
      expect(rows[0].n).toBe(0);
      // A second run finds nothing to do.
      expect(await store.migrate()).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
