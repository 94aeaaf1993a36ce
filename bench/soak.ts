// `npm run soak [sqlite|postgres]`: a mixed workload of every public endpoint against a real bridge process, at 50
// connections for 60 s on SQLite and then on PostgreSQL. Prints a markdown report; exits 1 when
// a target is missed (zero 5xx, zero socket errors, RSS growth under 10%). Loopback only.
import autocannon from 'autocannon';
import { createPgDatabase } from '../test/support/bridge';
import { newBridgeData, removeBridgeData } from '../test/support/bridge-data';
import { startBridgeProcess } from '../test/support/bridge-process';
import { freePort } from '../test/support/free-port';
import { seed, steps } from './support/mixed-workload';

const CONNECTIONS = 50;
const DURATION_S = Number(process.env.SOAK_SECONDS ?? 60);
// The same load first, unmeasured: a fresh process grows to its working set (heap, JIT, caches)
// in its first ~20 s, which is not a leak. A 180 s run plateaus at that level.
const WARMUP_S = Number(process.env.SOAK_WARMUP_SECONDS ?? 20);
const WINDOW_S = 10;
const RSS_TARGET = 0.1;

interface EngineReport {
  engine: string;
  result: autocannon.Result;
  byStep: Map<string, Map<string, number>>;
  unexpected: number;
  rssAfterWarmup: number;
  rssFirst: number;
  rssLast: number;
  /** RSS (MB) at every 10 s mark. */
  rssTimeline: number[];
}

async function soak(engine: 'sqlite' | 'postgres'): Promise<EngineReport> {
  const database = engine === 'postgres' ? await createPgDatabase() : undefined;
  const data = newBridgeData(database?.url);
  const bridge = await startBridgeProcess({
    data,
    env: {
      LOG_LEVEL: process.env.SOAK_LOG_LEVEL ?? 'error',
      BRIDGE_RATE_LIMIT_PER_MINUTE: '1000000',
      BRIDGE_VERIFY_RATE_LIMIT_PER_MINUTE: '1000000',
      BRIDGE_SSO_RATE_LIMIT_PER_MINUTE: '1000000',
      BRIDGE_ALLOW_PRIVATE_NETWORKS: 'true',
    },
  });
  try {
    const world = await seed(bridge, data);
    const plan = steps(world, await freePort());
    const byStep = new Map(plan.map((s) => [s.name, new Map<string, number>()]));
    let unexpected = 0;
    const requests: autocannon.Request[] = plan.map(
      ({ name, expect, tolerate, onResponse, ...request }) => ({
        ...request,
        onResponse: (status, body, context) => {
          const counts = byStep.get(name)!;
          const expected = expect.includes(status);
          const tolerated = expected ? undefined : tolerate?.(status, body);
          const answer = tolerated ? `${status} ${tolerated}` : String(status);
          counts.set(answer, (counts.get(answer) ?? 0) + 1);
          if (!expected && !tolerated) unexpected++;
          onResponse?.(status, body, context);
        },
      }),
    );

    if (WARMUP_S > 0) {
      await autocannon({ url: bridge.url, connections: CONNECTIONS, duration: WARMUP_S, requests });
      for (const counts of byStep.values()) counts.clear();
      unexpected = 0;
    }
    const rssAfterWarmup = bridge.rssMb();
    const samples: { at: number; mb: number }[] = [];
    const started = Date.now();
    const sampler = setInterval(() => {
      if (bridge.alive()) samples.push({ at: (Date.now() - started) / 1000, mb: bridge.rssMb() });
    }, 1000);
    const result = await autocannon({
      url: bridge.url,
      connections: CONNECTIONS,
      duration: DURATION_S,
      requests,
    });
    clearInterval(sampler);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    const rssFirst = mean(samples.filter((s) => s.at <= WINDOW_S).map((s) => s.mb));
    const rssLast = mean(samples.filter((s) => s.at > DURATION_S - WINDOW_S).map((s) => s.mb));
    if (!bridge.alive()) {
      const exit = await bridge.exited;
      throw new Error(
        `the bridge died (${JSON.stringify(exit)}):\n${bridge.stderr()}\n${bridge.stdout().slice(-4000)}`,
      );
    }
    const rssTimeline = samples.filter((_, i) => (i + 1) % WINDOW_S === 0).map((s) => s.mb);
    return { engine, result, byStep, unexpected, rssAfterWarmup, rssFirst, rssLast, rssTimeline };
  } finally {
    await bridge.stop();
    await database?.drop();
    removeBridgeData(data);
  }
}

const fmt = (n: number, digits = 0) => n.toFixed(digits);
const mark = (ok: boolean) => (ok ? 'met' : '**MISSED**');

console.log(
  `# Bridgekit soak\n\nNode ${process.version}, ${new Date().toISOString()}, ` +
    `${CONNECTIONS} connections, ${WARMUP_S} s warm-up then ${DURATION_S} s measured per engine, ` +
    'every endpoint in turn per connection.\n',
);
let failed = false;
// `npm run soak [sqlite|postgres ...]`: both by default.
const engines = process.argv.length > 2 ? process.argv.slice(2) : ['sqlite', 'postgres'];
for (const engine of engines) {
  if (engine !== 'sqlite' && engine !== 'postgres') throw new Error(`unknown engine ${engine}`);
  const r = await soak(engine);
  const socketErrors = r.result.errors + r.result.timeouts;
  const growth = (r.rssLast - r.rssFirst) / r.rssFirst;
  const ok5xx = r.result['5xx'] === 0;
  const okSockets = socketErrors === 0;
  const okRss = growth < RSS_TARGET;
  failed ||= !(ok5xx && okSockets && okRss && r.unexpected === 0);
  console.log(`## ${engine}\n`);
  console.log(
    '| requests | req/s | p50 ms | p99 ms | 2xx | 4xx | 5xx | socket errors | RSS first 10 s | RSS last 10 s | growth |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  console.log(
    `| ${r.result.requests.total} | ${fmt(r.result.requests.average)} | ${r.result.latency.p50} | ` +
      `${r.result.latency.p99} | ${r.result['2xx']} | ${r.result['4xx']} | ${r.result['5xx']} | ` +
      `${socketErrors} | ${fmt(r.rssFirst, 1)} MB | ${fmt(r.rssLast, 1)} MB | ${fmt(growth * 100, 1)}% |`,
  );
  console.log(
    `\nRSS after the ${WARMUP_S} s warm-up ${fmt(r.rssAfterWarmup)} MB, then every ${WINDOW_S} s: ` +
      `${r.rssTimeline.map((mb) => fmt(mb)).join(' → ')} MB`,
  );
  console.log('\n| endpoint | answers |\n|---|---|');
  for (const [name, counts] of r.byStep) {
    const answers = [...counts].map(([status, n]) => `${status}: ${n}`).join(', ');
    console.log(`| ${name} | ${answers} |`);
  }
  console.log(
    `\nzero 5xx: ${mark(ok5xx)}; zero socket errors: ${mark(okSockets)}; ` +
      `RSS growth < ${RSS_TARGET * 100}%: ${mark(okRss)}; ` +
      `only expected statuses: ${mark(r.unexpected === 0)} (${r.unexpected} unexpected)\n`,
  );
}
if (failed) process.exitCode = 1;
