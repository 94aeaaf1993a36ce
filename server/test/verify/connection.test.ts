import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MariaDb, mysqlConnectionOf, startMariaDb } from '../../../test/support/mariadb';
import { connectionOf, type PgCluster, startPgCluster } from '../../../test/support/pg-cluster';
import { withConnection } from '../../src/verify/connection';

// withConnection is the path health checks and schema syncs build on: the same route, driver,
// deadline and failure table as verify, with the caller's work in the middle.
const options = { timeoutMs: 5000, allowPrivateNetworks: true };

let pg: PgCluster;
let maria: MariaDb;

beforeAll(async () => {
  [pg, maria] = await Promise.all([
    startPgCluster({ ssl: true, auth: 'scram-sha-256' }),
    startMariaDb({ tls: true }),
  ]);
});
afterAll(async () => {
  await Promise.all([pg?.stop(), maria?.stop()]);
});

const dialects = [
  {
    name: 'POSTGRES',
    input: () => connectionOf(pg),
    param: 'SELECT $1::int + 1 AS n',
    sleep: 'SELECT pg_sleep(5)',
    missingTable: '42P01',
    schema: 'public',
  },
  {
    name: 'MYSQL',
    input: () => mysqlConnectionOf(maria),
    param: 'SELECT ? + 1 AS n',
    sleep: 'SELECT SLEEP(5)',
    missingTable: '42S02',
    schema: () => maria.database,
  },
] as const;

describe.each(dialects)('withConnection on $name', (dialect) => {
  it('runs the work with positional parameters and returns its value', async () => {
    const outcome = await withConnection(dialect.input(), options, (connection) =>
      connection.query(dialect.param, [41]),
    );
    expect(outcome.ok).toBe(true);
    const rows = outcome.ok ? outcome.value : [];
    expect(rows).toHaveLength(1);
    expect(Number(rows[0]?.n)).toBe(42);
  });

  it('reads the catalog: tables and columns with type and nullability', async () => {
    const schema = typeof dialect.schema === 'function' ? dialect.schema() : dialect.schema;
    const outcome = await withConnection(dialect.input(), options, async (connection) => {
      await connection.query('CREATE TABLE seam_orders (id integer NOT NULL, note varchar(20))');
      const placeholder = dialect.name === 'POSTGRES' ? '$1' : '?';
      return connection.query(
        `SELECT column_name AS name, data_type AS type, is_nullable AS nullable
           FROM information_schema.columns
          WHERE table_schema = ${placeholder} AND table_name = 'seam_orders'
          ORDER BY ordinal_position`,
        [schema],
      );
    });
    expect(outcome).toEqual({
      ok: true,
      value: [
        { name: 'id', type: expect.stringMatching(/^int(eger)?$/), nullable: 'NO' },
        {
          name: 'note',
          type: expect.stringMatching(/^(character varying|varchar)$/),
          nullable: 'YES',
        },
      ],
    });
  });

  it('turns an error from the work into a failure with the SQLSTATE as reason', async () => {
    const outcome = await withConnection(dialect.input(), options, (connection) =>
      connection.query('SELECT * FROM no_such_table'),
    );
    expect(outcome).toMatchObject({ ok: false, reason: dialect.missingTable });
  });

  it('fails connection errors as verify does (wrong password)', async () => {
    const outcome = await withConnection(
      { ...dialect.input(), password: 'wrong-seam-pw' },
      options,
      async () => 'never',
    );
    expect(outcome).toMatchObject({
      ok: false,
      fieldErrors: { username: 'Authentication failed.', password: 'Authentication failed.' },
    });
  });

  it('holds the work to the same deadline', async () => {
    const started = performance.now();
    let signal: AbortSignal | undefined;
    const outcome = await withConnection(
      dialect.input(),
      { ...options, timeoutMs: 600 },
      (connection, aborted) => {
        signal = aborted;
        return connection.query(dialect.sleep);
      },
    );
    expect(performance.now() - started).toBeLessThan(600 + 400);
    expect(outcome).toMatchObject({
      ok: false,
      reason: 'timeout',
      fieldErrors: { host: expect.any(String) },
    });
    expect(signal?.aborted).toBe(true);
  });
});
