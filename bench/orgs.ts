// Organizations list: authenticated GET /api/public/organizations?limit=50 (50 organizations)
// against a bare Express route answering the same bytes, on SQLite, PostgreSQL and PostgreSQL
// with Redis (a private redis-server: the rate limits count there), in interleaved rounds
// (BENCH_ORGS_ROUNDS, BENCH_ORGS_SECONDS) so the machine's other work lands on all alike; the
// ratio is the median of each round's ratio. BENCH_ORGS_ENGINES picks some
// (sqlite,postgres,postgres-redis).
// A/B: BENCH_AB_BUNDLE=<another build's main.js> also runs that build, on its own data, in the
// same rounds, so both builds' ratios come from the same run (see docs/performance.md).
// Run alone: npm run bench orgs
import type autocannon from 'autocannon';
import { createPgDatabase } from '../test/support/bridge';
import type { BridgeProcess } from '../test/support/bridge-process';
import { startRedisServer } from '../test/support/redis-server';
import { startBareProcess } from './support/bare-process';
import { startBenchBridge } from './support/bench-bridge';
import { type CpuLoadResult, fmt, loadWithCpu, median } from './support/load';

const CONNECTIONS = 16;
const ROUNDS = Number(process.env.BENCH_ORGS_ROUNDS ?? 3);
const DURATION_S = Number(process.env.BENCH_ORGS_SECONDS ?? 5);
const WARMUP_S = 2;
const AB_BUNDLE = process.env.BENCH_AB_BUNDLE;

const ENGINES = {
  sqlite: { label: 'SQLite', pg: false, redis: false, target: 0.6 },
  postgres: { label: 'PostgreSQL', pg: true, redis: false, target: 0.45 },
  'postgres-redis': { label: 'PostgreSQL + Redis', pg: true, redis: true, target: 0.45 },
} as const;
type EngineName = keyof typeof ENGINES;

type Result = CpuLoadResult;

const PATH = '/api/public/organizations?limit=50';

const measure = (pid: number, options: autocannon.Options) =>
  loadWithCpu(pid, { connections: CONNECTIONS, duration: DURATION_S, ...options });

/** A key and 50 organizations on `bridge`; the request that lists them. */
async function seed(bridge: BridgeProcess) {
  const key = await bridge.cli('keys', 'create', '--email', 'bench@example.com');
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  for (let i = 0; i < 50; i++) {
    const res = await fetch(`${bridge.url}/api/public/organizations`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        name: `Bench org ${i}`,
        embedAllowedOrigins: ['https://*.example.com'],
      }),
    });
    if (res.status !== 201) throw new Error(`seeding failed: ${res.status}`);
  }
  const body = await (await fetch(`${bridge.url}${PATH}`, { headers })).text();
  return { pid: bridge.pid, load: { url: `${bridge.url}${PATH}`, headers }, body };
}

type Seeded = Awaited<ReturnType<typeof seed>>;

/** Each bridge's rounds, interleaved with the bare route's (one round: bare, then each bridge). */
async function measureAll(bridges: Seeded[]) {
  // Same organizations, same key email: only ids and timestamps differ, never the length.
  const bare = await startBareProcess(bridges[0]!.body, 'GET', '/api/public/organizations');
  try {
    const onBare = { url: `${bare.url}${PATH}` };
    // Warm all up so JIT and caches are in the same state.
    await measure(bare.pid, { ...onBare, duration: WARMUP_S });
    for (const b of bridges) await measure(b.pid, { ...b.load, duration: WARMUP_S });
    const bareResults: Result[] = [];
    const bridgeResults: Result[][] = bridges.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      bareResults.push(await measure(bare.pid, onBare));
      for (const [i, b] of bridges.entries()) bridgeResults[i]!.push(await measure(b.pid, b.load));
    }
    return { bareResults, bridgeResults };
  } finally {
    await bare.stop();
  }
}

const row = (name: string, rs: Result[]) => {
  const p99s = rs.map((r) => r.p99);
  return (
    `| ${name} | ${fmt(median(rs.map((r) => r.rps)), 0)} | ${median(rs.map((r) => r.p50))} | ` +
    `${median(p99s)} (${Math.min(...p99s)}–${Math.max(...p99s)}) | ` +
    `${rs.reduce((n, r) => n + r.non2xx, 0)} | ${rs.reduce((n, r) => n + r.errors, 0)} | ` +
    `${fmt(median(rs.map((r) => r.cpuUs)), 0)} |`
  );
};

async function runEngine(name: EngineName) {
  const engine = ENGINES[name];
  const redis = engine.redis ? await startRedisServer() : undefined;
  const builds = [undefined, ...(AB_BUNDLE ? [AB_BUNDLE] : [])];
  const started: { bridge: BridgeProcess; drop?: () => Promise<void> }[] = [];
  try {
    for (const bundle of builds) {
      const db = engine.pg ? await createPgDatabase() : undefined;
      const env = {
        ...(db ? { DATABASE_URL: db.url } : {}),
        ...(redis ? { REDIS_URL: redis.url } : {}),
      };
      started.push({
        bridge: await startBenchBridge(env, undefined, undefined, bundle),
        drop: db?.drop,
      });
    }
    const seeded: Seeded[] = [];
    for (const s of started) seeded.push(await seed(s.bridge));
    const { bareResults, bridgeResults } = await measureAll(seeded);
    console.log(`### ${engine.label} (body ${seeded[0]!.body.length} bytes)\n`);
    console.log(
      '| server | req/s | p50 ms | p99 ms (spread) | non-2xx | errors | server CPU µs/req |',
    );
    console.log('|---|---|---|---|---|---|---|');
    console.log(row('bare Express, pre-serialized', bareResults));
    for (const [i, results] of bridgeResults.entries()) {
      console.log(row(i === 0 ? 'bridge' : `bridge B (${builds[i]})`, results));
    }
    console.log('');
    for (const [i, results] of bridgeResults.entries()) {
      const { bridge } = started[i]!;
      // Each round's ratio against the bare run of that round, then the median.
      const ratios = results.map((r, round) => r.rps / bareResults[round]!.rps);
      const ratio = median(ratios);
      const non2xx = results.reduce((n, r) => n + r.non2xx, 0);
      const peakRss = bridge.peakRssMb();
      console.log(
        `${i === 0 ? 'ratio' : 'B ratio'} ${fmt(ratio, 2)} (${fmt(Math.min(...ratios), 2)}–${fmt(Math.max(...ratios), 2)}; target ≥ ${engine.target}: ${ratio >= engine.target ? 'met' : 'MISSED'}), ` +
          `bridge peak RSS ${fmt(peakRss, 0)} MB (target < 150: ${peakRss < 150 ? 'met' : 'MISSED'}; ${fmt(bridge.rssMb(), 0)} MB at the end), ` +
          `non-2xx ${non2xx} (target 0: ${non2xx === 0 ? 'met' : 'MISSED'})\n`,
      );
    }
  } finally {
    for (const s of started) {
      await s.bridge.stop();
      await s.drop?.();
    }
    await redis?.stop();
  }
}

/** Authenticated GET /api/public/organizations?limit=50 vs a bare Express route with the same body. */
export async function run() {
  const wanted = (process.env.BENCH_ORGS_ENGINES ?? 'sqlite,postgres,postgres-redis')
    .split(',')
    .filter(Boolean) as EngineName[];
  for (const name of wanted) if (!ENGINES[name]) throw new Error(`unknown engine ${name}`);
  console.log(
    `\n## Organizations list (limit=50, ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds of ${DURATION_S} s, medians; each server in its own process)\n`,
  );
  for (const name of wanted) await runEngine(name);
}
