import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../../server/src/store/migrations';
import { createPgDatabase } from '../support/bridge';
import { runBridgeCli } from '../support/bridge-cli';
import { createApiKey, newBridgeData, removeBridgeData } from '../support/bridge-data';
import { startBridgeProcess } from '../support/bridge-process';
import { type PgBouncer, startPgBouncer } from '../support/pgbouncer';

const ALL_MIGRATIONS = Object.keys(migrations('postgres')).sort();

const SECRETS = {
  BRIDGE_SECRET_KEY: randomBytes(32).toString('base64'),
  BRIDGE_SESSION_SECRET: randomBytes(32).toString('base64url'),
};

/** The advisory locks anyone holds on the machine's PostgreSQL in `database`. */
async function advisoryLocks(database: string): Promise<number> {
  const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await client.connect();
  try {
    const { rows } = await client.query(
      `select count(*)::int as n from pg_locks l join pg_database d on d.oid = l.database
       where l.locktype = 'advisory' and d.datname = $1`,
      [database],
    );
    return rows[0].n;
  } finally {
    await client.end();
  }
}

const dbName = (url: string) => new URL(url).pathname.slice(1);

/** `host:port/database` of a PostgreSQL URL: how the CLI names a store on stderr. */
function target(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  return `${url.hostname}:${url.port}${url.pathname}`;
}

describe.each(['transaction', 'session'] as const)(
  'the bridge through PgBouncer in %s mode',
  (mode) => {
    let bouncer: PgBouncer;

    beforeAll(async () => {
      // Few server connections, so the pooler hands the same ones to every client in turn.
      bouncer = await startPgBouncer({ mode, defaultPoolSize: 3 });
    });
    afterAll(async () => {
      await bouncer?.stop();
    });

    it('`bridge migrate`, then the server starts and serves, with the default settings', async () => {
      const database = await createPgDatabase();
      const pooled = bouncer.url(dbName(database.url));
      const data = newBridgeData(pooled);
      try {
        // The server's keys: the migration records their check values.
        const migrated = await runBridgeCli(['migrate'], {
          BRIDGE_SECRET_KEY: data.secretKey,
          BRIDGE_SESSION_SECRET: data.sessionSecret,
          BRIDGE_DATA_DIR: data.dataDir,
          DATABASE_URL: pooled,
        });
        expect(migrated.stderr).toBe(`bridge: store PostgreSQL ${target(pooled)}\n`);
        expect(migrated.code).toBe(0);
        expect(migrated.stdout).toMatch(
          /^applied 0001_initial\n[\s\S]*applied pg-boss schema\n[\s\S]* change\(s\) applied; the store is up to date\n$/,
        );

        // The failure: the server's own migration check died on a named statement.
        const bridge = await startBridgeProcess({ data });
        try {
          const { key } = await createApiKey(data);
          const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
          for (let i = 0; i < 5; i++) {
            const created = await fetch(`${bridge.url}/api/public/organizations`, {
              method: 'POST',
              headers,
              body: JSON.stringify({ name: `Pooled ${i}` }),
            });
            expect(created.status).toBe(201);
          }
          const list = await fetch(`${bridge.url}/api/public/organizations?limit=50`, { headers });
          expect(list.status).toBe(200);
          const body = (await list.json()) as { data: { name: string }[] };
          expect(body.data.map((o) => o.name).sort()).toEqual(
            [0, 1, 2, 3, 4].map((i) => `Pooled ${i}`),
          );
          expect(bridge.stderr()).toBe('');
        } finally {
          await bridge.stop();
        }
        expect(await advisoryLocks(dbName(database.url))).toBe(0);
      } finally {
        removeBridgeData(data);
        await database.drop();
      }
    });

    it('migrations started at once by several CLIs apply once, and leave no lock behind', async () => {
      const database = await createPgDatabase();
      const pooled = bouncer.url(dbName(database.url));
      const data = newBridgeData(pooled);
      try {
        const env = { ...SECRETS, BRIDGE_DATA_DIR: data.dataDir, DATABASE_URL: pooled };
        const runs = await Promise.all([1, 2, 3].map(() => runBridgeCli(['migrate'], env)));
        for (const run of runs) {
          expect(run.stderr).toBe(`bridge: store PostgreSQL ${target(pooled)}\n`);
          expect(run.code).toBe(0);
        }
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        try {
          const { rows } = await client.query('select name from kysely_migration order by name');
          // Each migration the bridge has, applied exactly once.
          expect(rows.map((r) => r.name)).toEqual(ALL_MIGRATIONS);
        } finally {
          await client.end();
        }
        // A session-level lock taken through the pooler would stay on a server connection.
        expect(await advisoryLocks(dbName(database.url))).toBe(0);
      } finally {
        removeBridgeData(data);
        await database.drop();
      }
    });
  },
);

describe('DATABASE_DIRECT_URL', () => {
  it('takes the migrations, while the server serves through the pooled URL', async () => {
    const bouncer = await startPgBouncer({ mode: 'transaction', defaultPoolSize: 2 });
    const database = await createPgDatabase();
    const data = newBridgeData(bouncer.url(dbName(database.url)));
    try {
      const bridge = await startBridgeProcess({
        data,
        env: { DATABASE_DIRECT_URL: database.url },
      });
      try {
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        const { rows } = await client.query('select count(*)::int as n from kysely_migration');
        await client.end();
        expect(rows[0].n).toBe(ALL_MIGRATIONS.length);
        const { key } = await createApiKey(data);
        const res = await fetch(`${bridge.url}/api/public/organizations`, {
          headers: { authorization: `Bearer ${key}` },
        });
        expect(res.status).toBe(200);
      } finally {
        await bridge.stop();
      }
    } finally {
      removeBridgeData(data);
      await database.drop();
      await bouncer.stop();
    }
  });

  it('`bridge migrate` names both URLs it uses, and migrates through the direct one', async () => {
    const bouncer = await startPgBouncer({ mode: 'transaction', defaultPoolSize: 2 });
    const database = await createPgDatabase();
    const data = newBridgeData();
    try {
      const pooled = bouncer.url(dbName(database.url));
      const res = await runBridgeCli(['migrate'], {
        ...SECRETS,
        BRIDGE_DATA_DIR: data.dataDir,
        DATABASE_URL: pooled,
        DATABASE_DIRECT_URL: database.url,
      });
      expect(res.stderr).toBe(
        `bridge: store PostgreSQL ${target(pooled)} (migrations through ${target(database.url)})\n`,
      );
      expect(res.code).toBe(0);
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const { rows } = await client.query('select count(*)::int as n from kysely_migration');
      await client.end();
      expect(rows[0].n).toBe(ALL_MIGRATIONS.length);
    } finally {
      removeBridgeData(data);
      await database.drop();
      await bouncer.stop();
    }
  });

  it('without DATABASE_URL is refused at start, naming the variable', async () => {
    const res = await runBridgeCli(['migrate'], {
      ...SECRETS,
      DATABASE_DIRECT_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
    });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('DATABASE_DIRECT_URL: needs DATABASE_URL');
  });
});
