// Through a pooler: GET /api/public/organizations?limit=50 and the SSO exchange with the bridge
// behind a private PgBouncer (transaction pooling, Debian's `pgbouncer`), next to the same bridge
// on direct PostgreSQL, with unnamed statements (the default) and with named ones.
import os from 'node:os';
import { createSsoToken } from '@bridgekit/node';
import { createPgDatabase } from '../test/support/bridge';
import type { BridgeProcess } from '../test/support/bridge-process';
import { startPgBouncer } from '../test/support/pgbouncer';
import { startBenchBridge } from './support/bench-bridge';
import { type CpuLoadResult, fmt, type load, loadWithCpu } from './support/load';
import { signFreshSsoToken } from './support/sso-token';

const CONNECTIONS = 16;
const ROUNDS = 3;
const ROUND_S = 4;
const WARMUP_S = 2;
const MEMBERS = 200;
const TARGET = 0.8;

type Result = CpuLoadResult;

const measure = (
  bridge: BridgeProcess,
  options: Parameters<typeof load>[0],
  duration: number,
): Promise<Result> => loadWithCpu(bridge.pid, { ...options, connections: CONNECTIONS, duration });

interface World {
  bridge: BridgeProcess;
  list: Parameters<typeof load>[0];
  sso: Parameters<typeof load>[0];
  stop(): Promise<void>;
}

/** Seeds 50 organizations and MEMBERS returning members; the two workloads' load options. */
async function seedWorld(bridge: BridgeProcess): Promise<Omit<World, 'stop'>> {
  const key = await bridge.cli('keys', 'create', '--email', 'bench@example.com');
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  let org: { id: string; jwtSecret: string } | undefined;
  for (let i = 0; i < 50; i++) {
    const res = await fetch(`${bridge.url}/api/public/organizations?include=jwtSecret`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        name: `Bench org ${i}`,
        embedAllowedOrigins: ['https://*.example.com'],
      }),
    });
    if (res.status !== 201) throw new Error(`seeding failed: ${res.status}`);
    org ??= ((await res.json()) as { data: { id: string; jwtSecret: string } }).data;
  }
  const { id: orgId, jwtSecret: secret } = org!;
  const emails = Array.from({ length: MEMBERS }, (_, i) => `member${i}@bench.example.com`);
  for (let i = 0; i < emails.length; i += 25) {
    await Promise.all(
      emails.slice(i, i + 25).map(async (email) => {
        const jwt = await createSsoToken({ secret, orgId, user: { email } });
        const res = await fetch(`${bridge.url}/api/sso/jwt`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jwt }),
        });
        if (res.status !== 200) throw new Error(`seed ${email}: ${res.status}`);
      }),
    );
  }
  let turn = 0;
  return {
    bridge,
    list: { url: `${bridge.url}/api/public/organizations?limit=50`, headers },
    sso: {
      url: bridge.url,
      headers: { 'content-type': 'application/json' },
      requests: [
        {
          method: 'POST',
          path: '/api/sso/jwt',
          setupRequest: (req) => ({
            ...req,
            body: JSON.stringify({
              jwt: signFreshSsoToken(secret, orgId, emails[turn++ % emails.length]!),
            }),
          }),
        },
      ],
    },
  };
}

type Setup = 'direct, unnamed (default)' | 'PgBouncer transaction' | 'direct, named statements';

async function startSetup(setup: Setup): Promise<World> {
  const bouncer =
    setup === 'PgBouncer transaction'
      ? await startPgBouncer({ mode: 'transaction', defaultPoolSize: 20 })
      : undefined;
  const db = await createPgDatabase();
  const name = new URL(db.url).pathname.slice(1);
  const bridge = await startBenchBridge({
    DATABASE_URL: bouncer ? bouncer.url(name) : db.url,
    ...(setup === 'direct, named statements' ? { BRIDGE_PG_PREPARED: 'named' } : {}),
  });
  const stop = async () => {
    await bridge.stop();
    await db.drop();
    await bouncer?.stop();
  };
  try {
    return { ...(await seedWorld(bridge)), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The runs of one setup, summed. */
function total(runs: Result[]): Result {
  const sum = (f: (r: Result) => number) => runs.reduce((a, r) => a + f(r), 0);
  const requests = sum((r) => r.total);
  return {
    rps: sum((r) => r.rps) / runs.length,
    p50: Math.max(...runs.map((r) => r.p50)),
    p99: Math.max(...runs.map((r) => r.p99)),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    total: requests,
    cpuUs: sum((r) => r.cpuUs * r.total) / Math.max(1, requests),
  };
}

const row = (name: string, r: Result) =>
  `| ${name} | ${fmt(r.rps, 0)} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${r.errors} | ${fmt(r.cpuUs, 0)} |`;

export async function run() {
  console.log(
    `\n## Through a pooler (PgBouncer transaction mode vs direct PostgreSQL; ${CONNECTIONS} ` +
      `connections, ${ROUNDS} interleaved rounds of ${ROUND_S} s per setup, default pool size)\n`,
  );
  const setups: Setup[] = [
    'direct, unnamed (default)',
    'PgBouncer transaction',
    'direct, named statements',
  ];
  const worlds: World[] = [];
  try {
    for (const setup of setups) worlds.push(await startSetup(setup));
    const results = new Map<Setup, { list: Result; sso: Result }>();
    const runs = new Map(setups.map((s) => [s, { list: [] as Result[], sso: [] as Result[] }]));
    for (const workload of ['list', 'sso'] as const) {
      for (const world of worlds) await measure(world.bridge, world[workload], WARMUP_S);
      // Round after round, every setup in turn, each round starting with the next one: load
      // from other work on the machine falls on all of them alike.
      for (let round = 0; round < ROUNDS; round++) {
        for (let k = 0; k < worlds.length; k++) {
          const i = (round + k) % worlds.length;
          const world = worlds[i]!;
          const result = await measure(world.bridge, world[workload], ROUND_S);
          runs.get(setups[i]!)![workload].push(result);
        }
      }
    }
    for (const setup of setups) {
      const r = runs.get(setup)!;
      results.set(setup, { list: total(r.list), sso: total(r.sso) });
    }
    report(setups, results);
  } finally {
    for (const world of worlds) await world.stop();
  }
}

function report(setups: Setup[], results: Map<Setup, { list: Result; sso: Result }>) {
  const loadAvg = os.loadavg().map((n) => n.toFixed(1));
  console.log(
    `${os.cpus().length} CPUs, load average ${loadAvg.join(' ')} (other work on the machine skews every row).\n`,
  );
  for (const workload of ['list', 'sso'] as const) {
    console.log(
      workload === 'list'
        ? '### GET /api/public/organizations?limit=50\n'
        : `### POST /api/sso/jwt (fresh jti, ${MEMBERS} returning members)\n`,
    );
    console.log('| setup | req/s | p50 ms | p99 ms | non-2xx | errors | bridge CPU µs/req |');
    console.log('|---|---|---|---|---|---|---|');
    for (const setup of setups) console.log(row(setup, results.get(setup)![workload]));
    const pooled = results.get('PgBouncer transaction')![workload];
    const direct = results.get('direct, unnamed (default)')![workload];
    const named = results.get('direct, named statements')![workload];
    const ratio = pooled.rps / direct.rps;
    const failures = pooled.non2xx + pooled.errors;
    console.log(
      `\nthrough the pooler / direct: ${fmt(ratio, 2)} (target ≥ ${TARGET}: ${ratio >= TARGET ? 'met' : 'MISSED'}); ` +
        `through the pooler / direct with named statements: ${fmt(pooled.rps / named.rps, 2)}; ` +
        `unnamed / named on direct: ${fmt(direct.rps / named.rps, 2)} ` +
        `(bridge CPU per request unnamed / named: ${fmt(direct.cpuUs / named.cpuUs, 2)}); ` +
        `failures through the pooler ${failures} (target 0: ${failures === 0 ? 'met' : 'MISSED'})\n`,
    );
  }
}
