import Database from 'better-sqlite3';
import pg from 'pg';
import { createPgDatabase } from '../test/support/bridge';
import {
  type BridgeData,
  createApiKey,
  newBridgeData,
  removeBridgeData,
} from '../test/support/bridge-data';
import { type PgServer, startPgServer } from '../test/support/pg-server';
import { startBenchBridge } from './support/bench-bridge';
import { fmt, type LoadResult, load, median } from './support/load';

const SOURCES = 1000;
const ORGS = 50;
const CONNECTIONS = 16;
const DURATION_S = 10;
const ROUNDS = 3;
// The product's default interval (BRIDGE_HEALTH_INTERVAL_S); BENCH_HEALTH_INTERVAL_S=30 runs
// the checks at ten times the default rate (33 a second) as a stress case.
const HEALTH_INTERVAL_S = Number(process.env.BENCH_HEALTH_INTERVAL_S ?? 300);

async function seed(data: BridgeData, target: PgServer) {
  const bridge = await startBenchBridge({}, undefined, data);
  try {
    const { key } = await createApiKey(data, 'bench@example.com');
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${bridge.url}${path}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
      });
      if (res.status !== 201) throw new Error(`seeding ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()).data;
    };
    const orgs: string[] = [];
    for (let i = 0; i < ORGS; i++)
      orgs.push((await post('/api/public/organizations', { name: `Bench org ${i}` })).id);
    for (let i = 0; i < SOURCES; i++) {
      await post(`/api/public/organizations/${orgs[i % ORGS]}/data-sources`, {
        dialect: 'POSTGRES',
        displayName: `Warehouse ${i}`,
        host: '127.0.0.1',
        port: target.port,
        username: 'postgres',
        sslEnabled: false,
      });
    }
    return headers;
  } finally {
    await bridge.stop();
  }
}

/** Data sources whose last health check fell in [from, to). */
async function checkedBetween(data: BridgeData, from: Date, to: Date): Promise<number> {
  const [a, b] = [from.toISOString(), to.toISOString()];
  if (data.databaseUrl) {
    const client = new pg.Client({ connectionString: data.databaseUrl });
    await client.connect();
    const { rows } = await client.query(
      'select count(*)::int as n from data_sources where last_health_check_attempt_at >= $1 and last_health_check_attempt_at < $2',
      [a, b],
    );
    await client.end();
    return rows[0].n;
  }
  const db = new Database(`${data.dataDir}/bridge.db`, { readonly: true });
  try {
    const row = db
      .prepare(
        'select count(*) as n from data_sources where last_health_check_attempt_at >= ? and last_health_check_attempt_at < ?',
      )
      .get(a, b) as { n: number };
    return row.n;
  } finally {
    db.close();
  }
}

async function round(data: BridgeData, headers: Record<string, string>, jobs: boolean) {
  // Measure inside an interval's spread of checks. A bridge started in the first half of an
  // interval sweeps at once, over 80% of what is left of it (the busiest a sweep gets is
  // 1,000 checks over 40% of an interval); later, it waits for the next interval. So a
  // round with checks starts early enough in an interval for its window to be in a sweep.
  const interval = HEALTH_INTERVAL_S * 1000;
  const into = Date.now() % interval;
  if (jobs && into > interval / 2 - 15_000) {
    await new Promise((r) => setTimeout(r, interval - into + 500));
  }
  const bridge = await startBenchBridge(
    {
      BRIDGE_BACKGROUND_JOBS: String(jobs),
      BRIDGE_HEALTH_INTERVAL_S: String(HEALTH_INTERVAL_S),
      BRIDGE_SYNC_INTERVAL_S: '86400',
      BRIDGE_ALLOW_PRIVATE_NETWORKS: 'true',
    },
    undefined,
    data,
  );
  try {
    const url = `${bridge.url}/api/public/organizations?limit=50`;
    await load({ url, headers, connections: CONNECTIONS, duration: 2 });
    const from = new Date();
    const result = await load({ url, headers, connections: CONNECTIONS, duration: DURATION_S });
    const checked = await checkedBetween(data, from, new Date());
    return { result, checked };
  } finally {
    await bridge.stop();
  }
}

/**
 * GET /api/public/organizations throughput with 1,000 data sources under scheduled health checks
 * (every 30 s, against a real PostgreSQL) vs with background jobs off, on the same data;
 * interleaved rounds, medians. Each window starts just after an interval's start, while that
 * interval's checks are being spread (both kinds of round wait alike).
 */
export async function run() {
  console.log(
    `\n## Lifecycle: GET /organizations with ${SOURCES} data sources checked every ${HEALTH_INTERVAL_S} s vs no checks ` +
      `(${CONNECTIONS} connections, ${DURATION_S} s, ${ROUNDS} interleaved rounds, medians)\n`,
  );
  const target = await startPgServer();
  try {
    for (const engine of (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',')) {
      const db = engine === 'postgres' ? await createPgDatabase() : undefined;
      const data = newBridgeData(db?.url);
      try {
        const headers = await seed(data, target);
        const off: LoadResult[] = [];
        const on: LoadResult[] = [];
        const checked: number[] = [];
        for (let i = 0; i < ROUNDS; i++) {
          off.push((await round(data, headers, false)).result);
          const r = await round(data, headers, true);
          on.push(r.result);
          checked.push(r.checked);
        }
        const rps = (rs: LoadResult[]) => median(rs.map((r) => r.rps));
        const ratio = rps(on) / rps(off);
        console.log(`### ${engine}\n`);
        console.log(
          '| background jobs | req/s (median) | rounds req/s | p99 ms (median) | non-2xx |',
        );
        console.log('|---|---|---|---|---|');
        for (const [name, rs] of [
          ['off', off],
          ['health checks', on],
        ] as const) {
          console.log(
            `| ${name} | ${fmt(rps(rs), 0)} | ${rs.map((r) => fmt(r.rps, 0)).join(', ')} | ${median(rs.map((r) => r.p99))} | ${rs.reduce((n, r) => n + r.non2xx, 0)} |`,
          );
        }
        console.log(
          `\nratio ${fmt(ratio, 3)} (target ≥ 0.90: ${ratio >= 0.9 ? 'met' : 'MISSED'}); data sources checked during each ${DURATION_S} s window: ${checked.join(', ')}\n`,
        );
      } finally {
        removeBridgeData(data);
        await db?.drop();
      }
    }
  } finally {
    await target.destroy();
  }
}
