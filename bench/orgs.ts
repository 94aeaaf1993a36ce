// Organizations list: authenticated GET /api/public/organizations?limit=50 (50 organizations)
// against a bare Express route answering the same bytes, on SQLite and PostgreSQL, in
// interleaved rounds (BENCH_ORGS_ROUNDS, BENCH_ORGS_SECONDS) so the machine's other work lands on
// both alike; the ratio is the median of each round's ratio.
// Run alone: npm run bench orgs
import type autocannon from 'autocannon';
import { createPgDatabase } from '../test/support/bridge';
import type { BridgeProcess } from '../test/support/bridge-process';
import { startBareProcess } from './support/bare-process';
import { startBenchBridge } from './support/bench-bridge';
import { type CpuLoadResult, fmt, loadWithCpu, median } from './support/load';

const CONNECTIONS = 16;
const ROUNDS = Number(process.env.BENCH_ORGS_ROUNDS ?? 3);
const DURATION_S = Number(process.env.BENCH_ORGS_SECONDS ?? 5);
const WARMUP_S = 2;

type Result = CpuLoadResult;

const measure = (pid: number, options: autocannon.Options) =>
  loadWithCpu(pid, { connections: CONNECTIONS, duration: DURATION_S, ...options });

async function seedAndMeasure(bridge: BridgeProcess) {
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
  const path = '/api/public/organizations?limit=50';
  const body = await (await fetch(`${bridge.url}${path}`, { headers })).text();
  const bare = await startBareProcess(body, 'GET', '/api/public/organizations');
  try {
    const onBare = { url: `${bare.url}${path}` };
    const onBridge = { url: `${bridge.url}${path}`, headers };
    // Warm both up so JIT and caches are in the same state.
    await measure(bare.pid, { ...onBare, duration: WARMUP_S });
    await measure(bridge.pid, { ...onBridge, duration: WARMUP_S });
    const bareResults: Result[] = [];
    const bridgeResults: Result[] = [];
    // Interleaved, so a burst of other work on the machine lands on both alike.
    for (let round = 0; round < ROUNDS; round++) {
      bareResults.push(await measure(bare.pid, onBare));
      bridgeResults.push(await measure(bridge.pid, onBridge));
    }
    return {
      bareResults,
      bridgeResults,
      rss: bridge.rssMb(),
      peakRss: bridge.peakRssMb(),
      bytes: body.length,
    };
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

/** Authenticated GET /api/public/organizations?limit=50 vs a bare Express route with the same body. */
export async function run() {
  console.log(
    `\n## Organizations list (limit=50, ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds of ${DURATION_S} s, medians; each server in its own process)\n`,
  );
  for (const engine of ['sqlite', 'postgres'] as const) {
    const db = engine === 'postgres' ? await createPgDatabase() : undefined;
    const bridge = await startBenchBridge(db ? { DATABASE_URL: db.url } : {});
    try {
      const { bareResults, bridgeResults, rss, peakRss, bytes } = await seedAndMeasure(bridge);
      // Each round's ratio against the bare run just before it, then the median.
      const ratios = bridgeResults.map((r, i) => r.rps / bareResults[i]!.rps);
      const ratio = median(ratios);
      const non2xx = bridgeResults.reduce((n, r) => n + r.non2xx, 0);
      const target = engine === 'sqlite' ? 0.6 : 0.45;
      console.log(`### ${engine} (body ${bytes} bytes)\n`);
      console.log(
        '| server | req/s | p50 ms | p99 ms (spread) | non-2xx | errors | server CPU µs/req |',
      );
      console.log('|---|---|---|---|---|---|---|');
      console.log(row('bare Express, pre-serialized', bareResults));
      console.log(row('bridge', bridgeResults));
      console.log(
        `\nratio ${fmt(ratio, 2)} (${fmt(Math.min(...ratios), 2)}–${fmt(Math.max(...ratios), 2)}; target ≥ ${target}: ${ratio >= target ? 'met' : 'MISSED'}), ` +
          `bridge peak RSS ${fmt(peakRss, 0)} MB (target < 150: ${peakRss < 150 ? 'met' : 'MISSED'}; ${fmt(rss, 0)} MB at the end), ` +
          `non-2xx ${non2xx} (target 0: ${non2xx === 0 ? 'met' : 'MISSED'})\n`,
      );
    } finally {
      await bridge.stop();
      await db?.drop();
    }
  }
}
