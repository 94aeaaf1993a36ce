// Hostile verifies: 200 callers each keep a verify going (huge-KDF keys, DNS that never answers,
// listeners that never speak, and in the second scenario keys at the KDF cap), spread over 10
// users and 20 organizations, while GET /organizations is measured against its idle value in the
// same run. Verify rate limits are lifted: the process-wide connection cap alone must hold (an
// attacker can mint users through SSO). Needs root: a DNS server on port 53, a mount namespace.
import type { BridgeProcess } from '../test/support/bridge-process';
import { peakRssMbOf, resetPeakRss, threadsOf } from '../test/support/proc-stats';
import { startBenchBridge } from './support/bench-bridge';
import { startBlackHoleDns } from './support/black-hole-dns';
import {
  type Caller,
  type HostileKind,
  hostileTargets,
  startAttack,
} from './support/hostile-verifies';
import { fmt, type LoadResult, load } from './support/load';

const ATTACKERS = 200;
const USERS = 10;
const CONNECTIONS = 10;
const DURATION_S = 10;
const PATH = '/api/public/organizations?limit=50';

const SCENARIOS: Array<{ name: string; kinds: HostileKind[] }> = [
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

const row = (name: string, r: LoadResult, extra: string) =>
  `| ${name} | ${fmt(r.rps, 0)} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${extra} |`;

export async function run() {
  const dns = await startBlackHoleDns();
  const targets = await hostileTargets();
  const bridge = await startBenchBridge(
    { BRIDGE_VERIFY_RATE_LIMIT_PER_MINUTE: '1000000', BRIDGE_ALLOW_PRIVATE_NETWORKS: 'true' },
    dns.launch,
  );
  try {
    const { reader, callers } = await seed(bridge);
    const url = `${bridge.url}${PATH}`;
    const opts = { url, headers: { authorization: `Bearer ${reader}` }, connections: CONNECTIONS };
    await load({ ...opts, duration: 3 }); // warm-up
    resetPeakRss(bridge.pid);
    const idle = await load({ ...opts, duration: DURATION_S });
    const rows = [
      row('idle', idle, `${fmt(peakRssMbOf(bridge.pid), 0)} MB, ${threadsOf(bridge.pid)} threads`),
    ];
    const summary: string[] = [];
    for (const scenario of SCENARIOS) {
      resetPeakRss(bridge.pid);
      const hostile = await startAttack(bridge.url, callers, scenario.kinds, targets, ATTACKERS);
      await new Promise((resolve) => setTimeout(resolve, 3000)); // every slot taken
      const { result, maxThreads } = await watchThreads(bridge.pid, () =>
        load({ ...opts, duration: DURATION_S }),
      );
      const statuses = await hostile.stop();
      const peak = peakRssMbOf(bridge.pid);
      rows.push(row(scenario.name, result, `${fmt(peak, 0)} MB, ≤ ${maxThreads} threads`));
      const ratio = result.p99 / Math.max(1, idle.p99);
      summary.push(
        `- ${scenario.name}: p99 ${result.p99} ms = ${fmt(ratio, 2)} × idle (target ≤ 2: ${ratio <= 2 ? 'met' : 'MISSED'}), ` +
          `peak RSS ${fmt(peak, 0)} MB (target < 300: ${peak < 300 ? 'met' : 'MISSED'}); ` +
          `verify answers ${JSON.stringify(statuses)}`,
      );
    }
    console.log(
      `\n## Hostile verifies (${ATTACKERS} callers, ${USERS} users, ${callers.length} organizations)\n`,
    );
    console.log(
      `GET ${PATH}, ${CONNECTIONS} connections, ${DURATION_S} s each; RSS is the peak (VmHWM) of each phase.\n`,
    );
    console.log('| phase | req/s | p50 ms | p99 ms | non-2xx | bridge |');
    console.log('|---|---|---|---|---|---|');
    for (const line of rows) console.log(line);
    console.log(
      `\n${summary.join('\n')}\n- DNS queries that never got an answer: ${dns.queries()}\n`,
    );
  } finally {
    await bridge.stop();
    await targets.close();
    await dns.close();
  }
}
