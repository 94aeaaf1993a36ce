import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/db';

const user = (id: string) => ({
  id,
  email: `${id}@example.com`,
  isEmailVerified: 0,
  createdAt: new Date().toISOString(),
});

describe('SQLite transactions against another process', () => {
  let dataDir: string;
  let store: Store;
  let other: SQLite.Database;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-sqlite-tx-'));
    store = openStore({ dataDir });
    await store.migrate();
    // Another writer on the same file (as the CLI is), that gives up at once when locked out.
    other = new SQLite(path.join(dataDir, 'bridge.db'));
    other.pragma('busy_timeout = 0');
  });
  afterAll(async () => {
    other?.close();
    await store?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('holds the write lock from BEGIN, so a read-then-write transaction is never locked out', async () => {
    let otherError: unknown;
    await store.db.transaction().execute(async (tx) => {
      await tx.selectFrom('users').select('id').execute();
      // A deferred transaction would let this commit, then fail its own write (SQLITE_BUSY).
      try {
        other
          .prepare('insert into users (id, email, created_at) values (?, ?, ?)')
          .run('usr_other', 'other@example.com', new Date().toISOString());
      } catch (err) {
        otherError = err;
      }
      await tx.insertInto('users').values(user('usr_mine')).execute();
    });
    expect((otherError as { code?: string }).code).toBe('SQLITE_BUSY');
    const ids = (await store.db.selectFrom('users').select('id').execute()).map((r) => r.id);
    expect(ids).toEqual(['usr_mine']);
  });
});
