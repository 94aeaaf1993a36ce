// Verify engine: time to a result through verifyConnection vs. a bare pg.Client
// reaching the same outcome, interleaved in one run, plus the deadline's accuracy.
// Run alone: npx tsx --conditions=bridgekit-source -e "import('./bench/verify.ts').then(m => m.run())"  (needs root:
// it starts a throwaway PostgreSQL cluster like the tests do).
import { createServer, type Socket } from 'node:net';
import pg from 'pg';
import { verifyConnection } from '../server/src/verify/verify';
import { freePort } from '../test/support/free-port';
import { startPgCluster } from '../test/support/pg-cluster';
import { median } from './support/load';

const ITERATIONS = 30;
const TIMEOUT_RUNS = 5;
const DEADLINE_MS = 500;

interface Case {
  name: string;
  host: string;
  port: number;
  password: string;
  database: string;
  expectOk: boolean;
}

function p95(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(sorted.length * 0.95) - 1)]!;
}

const ms = (n: number) => n.toFixed(1);

async function timeVerify(c: Case, user: string): Promise<number> {
  const started = performance.now();
  const outcome = await verifyConnection(
    {
      dialect: 'POSTGRES',
      host: c.host,
      port: c.port,
      username: user,
      password: c.password,
      databaseName: c.database,
    },
    { timeoutMs: 10_000, allowPrivateNetworks: true },
  );
  const elapsed = performance.now() - started;
  if (outcome.ok !== c.expectOk)
    throw new Error(`${c.name}: unexpected outcome ${JSON.stringify(outcome)}`);
  return elapsed;
}

async function timeRaw(c: Case, user: string): Promise<number> {
  const started = performance.now();
  const client = new pg.Client({
    host: c.host,
    port: c.port,
    user,
    password: c.password,
    database: c.database,
    ssl: { rejectUnauthorized: false },
  });
  client.on('error', () => {});
  let ok = false;
  try {
    await client.connect();
    await client.query('SELECT 1');
    ok = true;
  } catch {
    // the failure is the outcome being measured
  } finally {
    await client.end().catch(() => {});
  }
  const elapsed = performance.now() - started;
  if (ok !== c.expectOk) throw new Error(`${c.name}: raw client outcome ${ok}`);
  return elapsed;
}

export async function run(): Promise<void> {
  const db = await startPgCluster({ ssl: true, auth: 'scram-sha-256' });
  const silentSockets: Socket[] = [];
  const silent = createServer((socket) => {
    silentSockets.push(socket);
    socket.resume();
  });
  try {
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const silentPort = (silent.address() as { port: number }).port;
    const refusedPort = await freePort();
    const base = { host: db.host, port: db.port, password: db.password, database: db.database };
    const cases: Case[] = [
      { name: 'success (TLS, SCRAM)', ...base, expectOk: true },
      { name: 'connection refused', ...base, port: refusedPort, expectOk: false },
      { name: 'host does not resolve', ...base, host: 'nope.invalid', expectOk: false },
      { name: 'bad password', ...base, password: 'wrong-password', expectOk: false },
      { name: 'unknown database', ...base, database: 'no_such_db', expectOk: false },
    ];

    // Warm-up: module loading, first TLS context, first DNS miss.
    for (const c of cases) {
      await timeVerify(c, db.user);
      await timeRaw(c, db.user);
    }

    const rows: string[] = [];
    for (const c of cases) {
      const verify: number[] = [];
      const raw: number[] = [];
      for (let i = 0; i < ITERATIONS; i++) {
        // Alternate which goes first so neither always gets the warmer cache.
        if (i % 2 === 0) {
          verify.push(await timeVerify(c, db.user));
          raw.push(await timeRaw(c, db.user));
        } else {
          raw.push(await timeRaw(c, db.user));
          verify.push(await timeVerify(c, db.user));
        }
      }
      rows.push(
        `| ${c.name} | ${ms(median(verify))} | ${ms(p95(verify))} | ${ms(median(raw))} | ${ms(p95(raw))} | ${ms(median(verify) - median(raw))} |`,
      );
    }

    const actual: number[] = [];
    for (let i = 0; i < TIMEOUT_RUNS; i++) {
      const started = performance.now();
      const outcome = await verifyConnection(
        { dialect: 'POSTGRES', host: '127.0.0.1', port: silentPort, username: 'u', password: 'p' },
        { timeoutMs: DEADLINE_MS, allowPrivateNetworks: true },
      );
      actual.push(performance.now() - started);
      if (outcome.ok || outcome.reason !== 'timeout')
        throw new Error('timeout case did not time out');
    }

    console.log(`\n## verify\n`);
    console.log(
      `${ITERATIONS} interleaved iterations per case, loopback PostgreSQL (TLS, scram-sha-256); times in ms.\n`,
    );
    console.log(
      '| case | verify median | verify p95 | raw pg median | raw pg p95 | overhead (median) |',
    );
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const row of rows) console.log(row);
    console.log(
      `\n| timeout case | deadline | actual median | actual max | ratio (max / deadline) |`,
    );
    console.log('|---|---:|---:|---:|---:|');
    console.log(
      `| silent listener, ${TIMEOUT_RUNS} runs | ${DEADLINE_MS} | ${ms(median(actual))} | ${ms(Math.max(...actual))} | ${(Math.max(...actual) / DEADLINE_MS).toFixed(3)} |`,
    );
  } finally {
    for (const socket of silentSockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
    await db.stop();
  }
}
