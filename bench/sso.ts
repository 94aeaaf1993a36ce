// SSO exchange: POST /api/sso/jwt throughput and latency with a fresh jti per request, for
// returning members (a pool of MEMBERS who signed in before) and for first sign-ins (a new
// email each request), next to a bare Express POST route answering a body of the same size.
// On every engine: SQLite, PostgreSQL (a fresh database per run), PostgreSQL with Redis (a
// private redis-server per run: replay protection and rate limits in Redis).
// BENCH_SSO_ENGINES picks some (sqlite,postgres,postgres-named,postgres-pool32,postgres-redis); BENCH_SSO_ROUNDS
// and BENCH_SSO_SECONDS set the interleaved rounds.
// Run alone: npm run bench sso
import os from 'node:os';
import { createSsoToken } from '@bridgekit/node';
import { createPgDatabase } from '../test/support/bridge';
import type { BridgeProcess } from '../test/support/bridge-process';
import { startRedisServer } from '../test/support/redis-server';
import { startBareProcess } from './support/bare-process';
import { startBenchBridge } from './support/bench-bridge';
import { type CpuLoadResult, loadWithCpu, median } from './support/load';
import { signFreshSsoToken } from './support/sso-token';

const CONNECTIONS = 32;
const ROUNDS = Number(process.env.BENCH_SSO_ROUNDS ?? 3);
const DURATION_S = Number(process.env.BENCH_SSO_SECONDS ?? 5);
const WARMUP_S = 2;
const MEMBERS = 500;
const TARGET_RATIO = 0.35;
const TARGET_P99_MS = 30;
const TARGET_RSS_MB = 150;

const ENGINES = {
  sqlite: { label: 'SQLite', pg: false, redis: false, env: {} },
  postgres: { label: 'PostgreSQL', pg: true, redis: false, env: {} },
  'postgres-named': {
    label: 'PostgreSQL, named statements',
    pg: true,
    redis: false,
    env: { BRIDGE_PG_PREPARED: 'named' },
  },
  'postgres-pool32': {
    label: 'PostgreSQL, a pool of 32',
    pg: true,
    redis: false,
    env: { BRIDGE_PG_POOL_SIZE: '32' },
  },
  'postgres-redis': { label: 'PostgreSQL + Redis', pg: true, redis: true, env: {} },
} as const;
type EngineName = keyof typeof ENGINES;

type Result = CpuLoadResult;

async function measure(
  url: string,
  pid: number,
  nextBody: () => string,
  duration: number,
): Promise<Result> {
  return loadWithCpu(pid, {
    url,
    connections: CONNECTIONS,
    duration,
    headers: { 'content-type': 'application/json' },
    requests: [
      {
        method: 'POST',
        path: '/api/sso/jwt',
        setupRequest: (req) => ({ ...req, body: nextBody() }),
      },
    ],
  });
}

const fixed = (n: number, digits = 0) => n.toFixed(digits);
const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');

/** Creates an organization and signs MEMBERS members in once; the two workloads' bodies. */
async function seed(bridge: BridgeProcess) {
  const ownerKey = await bridge.cli('keys', 'create', '--email', 'bench-owner@example.com');
  const created = await fetch(`${bridge.url}/api/public/organizations?include=jwtSecret`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ownerKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'SSO bench', embedAllowedOrigins: ['https://app.example.com'] }),
  });
  if (created.status !== 201) throw new Error(`create organization: ${created.status}`);
  const { id: orgId, jwtSecret: secret } = (
    (await created.json()) as { data: { id: string; jwtSecret: string } }
  ).data;
  const emails = Array.from({ length: MEMBERS }, (_, i) => `member${i}@bench.example.com`);
  let sample = '';
  for (let i = 0; i < emails.length; i += 25) {
    await Promise.all(
      emails.slice(i, i + 25).map(async (email) => {
        // A 503 (the store's bounded wait, on a loaded machine) is retried: seeding is not measured.
        for (let attempt = 1; ; attempt++) {
          const jwt = await createSsoToken({ secret, orgId, user: { email } });
          const res = await fetch(`${bridge.url}/api/sso/jwt`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ jwt }),
          });
          const text = await res.text();
          if (res.status === 200) {
            sample = text;
            break;
          }
          if (res.status !== 503 || attempt === 3) {
            throw new Error(`seed ${email}: ${res.status} ${text}`);
          }
        }
      }),
    );
  }
  let turn = 0;
  let fresh = 0;
  return {
    sample,
    returning: () =>
      JSON.stringify({ jwt: signFreshSsoToken(secret, orgId, emails[turn++ % emails.length]!) }),
    first: () =>
      JSON.stringify({ jwt: signFreshSsoToken(secret, orgId, `new${fresh++}@bench.example.com`) }),
  };
}

interface EngineReport {
  name: EngineName;
  bare: Result[];
  returning: Result[];
  first: Result[];
  peakRss: number;
  endRss: number;
  bytes: number;
}

async function benchEngine(name: EngineName): Promise<EngineReport> {
  const engine = ENGINES[name];
  const db = engine.pg ? await createPgDatabase() : undefined;
  const redis = engine.redis ? await startRedisServer() : undefined;
  const bridge = await startBenchBridge({
    ...(db ? { DATABASE_URL: db.url } : {}),
    ...(redis ? { REDIS_URL: redis.url } : {}),
    ...engine.env,
  });
  let bare: Awaited<ReturnType<typeof startBareProcess>> | undefined;
  try {
    const world = await seed(bridge);
    bare = await startBareProcess(world.sample, 'POST', '/api/sso/jwt');
    // Warm both, so JIT and caches are in the same state when measured.
    await measure(bare.url, bare.pid, world.returning, WARMUP_S);
    await measure(bridge.url, bridge.pid, world.returning, WARMUP_S);
    const report: EngineReport = {
      name,
      bare: [],
      returning: [],
      first: [],
      peakRss: 0,
      endRss: 0,
      bytes: world.sample.length,
    };
    // Interleaved, so a burst of other work on the machine lands on every row alike.
    for (let round = 0; round < ROUNDS; round++) {
      report.bare.push(await measure(bare.url, bare.pid, world.returning, DURATION_S));
      report.returning.push(await measure(bridge.url, bridge.pid, world.returning, DURATION_S));
      report.first.push(await measure(bridge.url, bridge.pid, world.first, DURATION_S));
    }
    report.peakRss = bridge.peakRssMb();
    report.endRss = bridge.rssMb();
    return report;
  } finally {
    await bare?.stop();
    await bridge.stop();
    await redis?.stop();
    await db?.drop();
  }
}

function print(r: EngineReport) {
  console.log(`### ${ENGINES[r.name].label} (response ${r.bytes} bytes)\n`);
  console.log(
    '| server | req/s | ratio | p50 ms | p99 ms | p99 spread ms | non-2xx | errors | server CPU µs/req |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  const line = (label: string, rs: Result[], ratio: string) => {
    const p99s = rs.map((x) => x.p99);
    console.log(
      `| ${label} | ${fixed(median(rs.map((x) => x.rps)))} | ${ratio} | ${median(rs.map((x) => x.p50))} | ` +
        `${median(p99s)} | ${Math.min(...p99s)}–${Math.max(...p99s)} | ` +
        `${rs.reduce((n, x) => n + x.non2xx, 0)} | ${rs.reduce((n, x) => n + x.errors, 0)} | ` +
        `${fixed(median(rs.map((x) => x.cpuUs)))} |`,
    );
  };
  // Ratios per round (each against the bare run just before it), then the median.
  const ratios = (rs: Result[]) => rs.map((x, i) => x.rps / r.bare[i]!.rps);
  line('bare Express POST, pre-serialized', r.bare, '1');
  const returning = ratios(r.returning);
  const first = ratios(r.first);
  const spread = (xs: number[]) =>
    `${fixed(median(xs), 2)} (${fixed(Math.min(...xs), 2)}–${fixed(Math.max(...xs), 2)})`;
  line(`bridge, returning members (pool of ${MEMBERS})`, r.returning, spread(returning));
  line('bridge, first sign-ins', r.first, spread(first));
  const checks = (label: string, rs: Result[], ratio: number) => {
    const p99 = median(rs.map((x) => x.p99));
    const failed = rs.reduce((n, x) => n + x.non2xx + x.errors, 0);
    // With every connection always waiting on an answer, the mean latency is connections ÷ rate:
    // the p99 can't be below it, so on a slow machine the p99 target is a throughput target.
    const meanMs = (CONNECTIONS / median(rs.map((x) => x.rps))) * 1000;
    return (
      `${label}: ratio ${fixed(ratio, 2)} (target ≥ ${TARGET_RATIO}: ${verdict(ratio >= TARGET_RATIO)}), ` +
      `p99 ${p99} ms (target < ${TARGET_P99_MS}: ${verdict(p99 < TARGET_P99_MS)}; mean latency at this ` +
      `rate ${fixed(meanMs)} ms, the bare route's own p99 ${median(r.bare.map((x) => x.p99))} ms), ` +
      `failed ${failed} (target 0: ${verdict(failed === 0)})`
    );
  };
  console.log(`\n${checks('returning', r.returning, median(returning))}; `);
  console.log(`${checks('first sign-ins', r.first, median(first))}; `);
  console.log(
    `bridge peak RSS ${fixed(r.peakRss)} MB (target < ${TARGET_RSS_MB}: ${verdict(r.peakRss < TARGET_RSS_MB)}; ` +
      `${fixed(r.endRss)} MB at the end)\n`,
  );
}

export async function run(): Promise<void> {
  const wanted = (process.env.BENCH_SSO_ENGINES ?? 'sqlite,postgres,postgres-redis')
    .split(',')
    .filter(Boolean) as EngineName[];
  for (const name of wanted) if (!ENGINES[name]) throw new Error(`unknown engine ${name}`);
  console.log(
    `\n## SSO exchange (POST /api/sso/jwt, fresh jti per request, ${CONNECTIONS} connections, ` +
      `${ROUNDS} interleaved rounds of ${DURATION_S} s, medians; each server in its own process)\n`,
  );
  for (const name of wanted) {
    const loadBefore = os.loadavg()[0]!.toFixed(1);
    const report = await benchEngine(name);
    print(report);
    console.log(
      `${os.cpus().length} CPUs, load average ${loadBefore} before, ${os.loadavg()[0]!.toFixed(1)} after ` +
        '(other work on the machine skews every row; the ratios and the spreads say how much).\n',
    );
  }
}
