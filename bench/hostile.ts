// Hostile verifies: 200 callers each keep a verify going (huge-KDF keys, DNS that never answers,
// listeners that never speak, and in the second scenario keys at the KDF cap), spread over 10
// users and 20 organizations, while GET /organizations is measured against its idle value in the
// same run: its latency at a steady 200 req/s (the target: p99 within 2x idle), and its
// throughput when driven flat out (saturated, where p99 is mostly queueing). Verify rate limits
// are lifted: the process-wide connection cap alone must hold (an attacker can mint users
// through SSO). The per-key request limit (600/min) is lifted too, for the reader; the attackers
// keep to it themselves, since past it they are a plain request flood, not a verify problem.
// Needs root: a DNS server on port 53, a mount namespace.
import os from 'node:os';
import type { BridgeProcess } from '../test/support/bridge-process';
import { cpuMsOf, peakRssMbOf, resetPeakRss, threadsOf } from '../test/support/proc-stats';
import { startBenchBridge } from './support/bench-bridge';
import { startBlackHoleDns } from './support/black-hole-dns';
import {
  type Caller,
  type HostileKind,
  hostileTargets,
  startAttack,
} from './support/hostile-verifies';
import { fmt, type LoadResult, load, median } from './support/load';

const ATTACKERS = 200;
const USERS = 10;
const CONNECTIONS = 10;
const DURATION_S = 10;
const ROUNDS = 3;
const PACED_RATE = 200;
/** The bridge's default per-key limit, 600 requests a minute. */
const PER_KEY_PER_SECOND = 10;
const PATH = '/api/public/organizations?limit=50';

const SCENARIOS: Phase[] = [
  {
    name: 'huge-rounds keys, silent DNS, silent listener',
    kinds: ['huge-rounds', 'dns', 'silent'],
  },
  { name: 'the same, plus keys at the KDF cap', kinds: ['huge-rounds', 'dns', 'silent', 'at-cap'] },
];

async function api(bridge: BridgeProcess, key: string, path: string, body: unknown) {
  const res = await fetch(`${bridge.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { data: { id: string } };
}

/** A reader with 50 organizations to list, and USERS attackers with two organizations each. */
async function seed(bridge: BridgeProcess) {
  const reader = await bridge.cli('keys', 'create', '--email', 'reader@example.com');
  for (let i = 0; i < 50; i++) {
    await api(bridge, reader, '/api/public/organizations', { name: `Reader org ${i}` });
  }
  const callers: Caller[] = [];
  for (let u = 0; u < USERS; u++) {
    const key = await bridge.cli('keys', 'create', '--email', `attacker${u}@example.com`);
    for (let o = 0; o < 2; o++) {
      const org = await api(bridge, key, '/api/public/organizations', {
        name: `Hostile ${u}.${o}`,
      });
      callers.push({ key, orgId: org.data.id });
    }
  }
  return { reader, callers };
}

/** The highest thread count seen while `work` runs, sampled every 100 ms. */
async function watchThreads<T>(pid: number, work: () => Promise<T>) {
  let max = threadsOf(pid);
  const timer = setInterval(() => {
    max = Math.max(max, threadsOf(pid));
  }, 100);
  try {
    return { result: await work(), maxThreads: max };
  } finally {
    clearInterval(timer);
  }
}

interface Phase {
  name: string;
  kinds: HostileKind[];
}

interface Measured {
  paced: LoadResult;
  /** The bridge's CPU (all threads) during the paced run, in % of one core. */
  pacedCpu: number;
  saturated: LoadResult;
  peakRssMb: number;
  maxThreads: number;
  statuses: Record<string, number>;
}

/** One phase: the hostile callers (if any) running, then GET /organizations measured. */
async function measure(
  bridge: BridgeProcess,
  opts: Parameters<typeof load>[0],
  phase: Phase,
  callers: Caller[],
  targets: Awaited<ReturnType<typeof hostileTargets>>,
): Promise<Measured> {
  resetPeakRss(bridge.pid);
  const hostile =
    phase.kinds.length > 0
      ? await startAttack(bridge.url, callers, phase.kinds, targets, ATTACKERS, PER_KEY_PER_SECOND)
      : undefined;
  if (hostile) await new Promise((resolve) => setTimeout(resolve, 3000)); // every slot taken
  const { result, maxThreads } = await watchThreads(bridge.pid, async () => {
    const cpu = cpuMsOf(bridge.pid);
    const paced = await load({ ...opts, overallRate: PACED_RATE });
    const pacedCpu = (cpuMsOf(bridge.pid) - cpu) / (DURATION_S * 10);
    return { paced, pacedCpu, saturated: await load(opts) };
  });
  const statuses = (await hostile?.stop()) ?? {};
  return { ...result, peakRssMb: peakRssMbOf(bridge.pid), maxThreads, statuses };
}

function report(phases: Phase[], results: Measured[][], callers: number, dnsQueries: number) {
  console.log(
    `\n## Hostile verifies (${ATTACKERS} callers, ${USERS} users, ${callers} organizations)\n`,
  );
  console.log(
    `GET ${PATH}, ${CONNECTIONS} connections, ${DURATION_S} s at ${PACED_RATE} req/s then ${DURATION_S} s ` +
      `flat out, per phase; ${ROUNDS} interleaved rounds (medians; p99 range in brackets). ` +
      `Load average at the end ${os
        .loadavg()
        .map((l) => fmt(l, 1))
        .join(' ')}.\n`,
  );
  console.log(
    `| phase | p99 ms at ${PACED_RATE} req/s | p99 / idle | bridge CPU | flat out req/s | flat out p99 ms | peak RSS | threads | verify answers |`,
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  const idleP99 = median(results[0]!.map((m) => m.paced.p99));
  phases.forEach((phase, i) => {
    const runs = results[i]!;
    const p99s = runs.map((m) => m.paced.p99);
    const statuses: Record<string, number> = {};
    for (const m of runs) {
      for (const [k, v] of Object.entries(m.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
    }
    console.log(
      `| ${phase.name} | ${median(p99s)} [${Math.min(...p99s)}–${Math.max(...p99s)}] | ` +
        `${fmt(median(p99s) / Math.max(1, idleP99), 2)} | ${fmt(median(runs.map((m) => m.pacedCpu)), 0)}% | ` +
        `${fmt(median(runs.map((m) => m.saturated.rps)), 0)} | ` +
        `${median(runs.map((m) => m.saturated.p99))} | ${fmt(Math.max(...runs.map((m) => m.peakRssMb)), 0)} MB | ` +
        `${Math.max(...runs.map((m) => m.maxThreads))} | ${JSON.stringify(statuses)} |`,
    );
  });
  console.log(
    `\nTargets: p99 ≤ 2 × idle, peak RSS < 300 MB. DNS queries left unanswered: ${dnsQueries}.\n`,
  );
}

export async function run() {
  const dns = await startBlackHoleDns();
  const targets = await hostileTargets();
  const bridge = await startBenchBridge(
    { BRIDGE_VERIFY_RATE_LIMIT_PER_MINUTE: '1000000', BRIDGE_ALLOW_PRIVATE_NETWORKS: 'true' },
    dns.launch,
  );
  try {
    const { reader, callers } = await seed(bridge);
    const opts = {
      url: `${bridge.url}${PATH}`,
      headers: { authorization: `Bearer ${reader}` },
      connections: CONNECTIONS,
      duration: DURATION_S,
    };
    await load({ ...opts, duration: 3 }); // warm-up
    const phases: Phase[] = [{ name: 'idle', kinds: [] }, ...SCENARIOS];
    const results: Measured[][] = phases.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, phase] of phases.entries()) {
        results[i]!.push(await measure(bridge, opts, phase, callers, targets));
      }
    }
    report(phases, results, callers.length, dns.queries());
  } finally {
    await bridge.stop();
    await targets.close();
    await dns.close();
  }
}
