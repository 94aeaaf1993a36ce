import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createPgDatabase } from '../../../test/support/bridge';
import { createLimiter } from '../../src/rate-limit';
import { openStore, type Store } from '../../src/store/db';
import { findOrganizationById } from '../../src/store/organizations';

/**
 * Which statements stay prepared on the store's one connection after the hot paths ran: none
 * with unnamed statements (safe behind a transaction pooler), ours and the limiter's by name
 * with BRIDGE_PG_PREPARED=named.
 */
describe('PostgreSQL statements, named or unnamed', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function open(prepared: 'named' | 'unnamed' | undefined): Promise<Store> {
    const database = await createPgDatabase();
    cleanups.push(database.drop);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-prep-'));
    cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    // One connection, so the prepared statements seen are the ones the queries left.
    const store = openStore({
      databaseUrl: database.url,
      dataDir,
      poolSize: 1,
      ...(prepared ? { prepared } : {}),
    });
    cleanups.push(() => store.close());
    await store.migrate();
    return store;
  }

  async function preparedNames(store: Store): Promise<string[]> {
    // Kysely's query, a precompiled read, the store version and a rate-limit hit.
    await store.db.selectFrom('users').select('id').execute();
    await findOrganizationById(store.db, 'org_none');
    await store.version(['organizations']);
    const limiter = createLimiter({
      name: 'api',
      perMinute: 10,
      backend: { kind: 'postgres', pool: store.pgPool! },
    });
    expect((await limiter.consume('key:k')).consumedPoints).toBe(1);
    const { rows } = await store.pgPool!.query(
      'select name from pg_prepared_statements order by name',
    );
    return rows.map((r) => r.name as string);
  }

  it('leaves no named statement on the connection by default', async () => {
    expect(await preparedNames(await open(undefined))).toEqual([]);
  });

  it('leaves none with unnamed', async () => {
    expect(await preparedNames(await open('unnamed'))).toEqual([]);
  });

  it('prepares each statement once per connection with named', async () => {
    const names = await preparedNames(await open('named'));
    expect(names.filter((n) => n.startsWith('bk_')).length).toBeGreaterThanOrEqual(3);
    expect(names).toContain('rate_limits:rlflx-upsert');
  });
});
