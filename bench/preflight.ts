// CORS preflight as the number of stored embed origins grows: `OPTIONS /api/sso/jwt` (a path
// that names no organization, so the answer is "does any organization allow this origin") from
// an allowed exact origin, an origin allowed by a wildcard, and a refused one, on a bridge whose
// organizations store 60,000 origins against one that stores 2, in interleaved rounds; then the
// exact origin again while an organization is renamed every 100 ms (each write changes what the
// answers were cached under). Both are SQLite bridges in their own processes; the ratio is the
// median of each round's many/few.
// Run alone: npm run bench preflight
import type { BridgeProcess } from '../test/support/bridge-process';
import { startBenchBridge } from './support/bench-bridge';
import { type CpuLoadResult, fmt, loadWithCpu, median } from './support/load';

const CONNECTIONS = 16;
const ROUNDS = Number(process.env.BENCH_PREFLIGHT_ROUNDS ?? 3);
const DURATION_S = Number(process.env.BENCH_PREFLIGHT_SECONDS ?? 4);
const MANY = 60_000;
const PER_ORG = 100; // the most one organization may list

/** Origin i of the big store: two in three exact, one in three a wildcard over its own domain. */
const originOf = (i: number) =>
  i % 3 === 2 ? `https://*.tenant${i}.example.net` : `https://app${i}.example.com`;

interface Seeded {
  headers: Record<string, string>;
  /** The first organization made (the one the write cases rename). */
  orgId: string;
}

async function addOrigins(bridge: BridgeProcess, total: number): Promise<Seeded> {
  const key = await bridge.cli('keys', 'create', '--email', 'bench@example.com');
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const post = async (origins: string[], i: number): Promise<string> => {
    const res = await fetch(`${bridge.url}/api/public/organizations`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: `Preflight org ${i}`, embedAllowedOrigins: origins }),
    });
    if (res.status !== 201) throw new Error(`seeding failed: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: { id: string } }).data.id;
  };
  if (total <= 2) {
    const orgId = await post(['https://app0.example.com', 'https://*.tenant2.example.net'], 0);
    return { headers, orgId };
  }
  let orgId = '';
  for (let org = 0; org * PER_ORG < total; org++) {
    const origins: string[] = [];
    for (let i = org * PER_ORG; i < Math.min(total, (org + 1) * PER_ORG); i++)
      origins.push(originOf(i));
    const id = await post(origins, org);
    orgId ||= id;
  }
  return { headers, orgId };
}

const WRITE_EVERY_MS = 100;

/** Renames the organization every WRITE_EVERY_MS until stopped; stop() says how many it made. */
function renameEvery(bridge: BridgeProcess, seeded: Seeded) {
  let writes = 0;
  const failures: number[] = [];
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(async () => {
      const res = await fetch(`${bridge.url}/api/public/organizations/${seeded.orgId}`, {
        method: 'PATCH',
        headers: seeded.headers,
        body: JSON.stringify({ name: `Preflight org ${writes}` }),
      });
      await res.arrayBuffer();
      if (res.status === 200) writes++;
      else failures.push(res.status);
    });
  }, WRITE_EVERY_MS);
  return async () => {
    clearInterval(timer);
    await running;
    if (failures.length > 0) throw new Error(`renames failed: ${failures.join(', ')}`);
    return writes;
  };
}

const CASES = [
  ['exact origin, allowed', 'https://app0.example.com', 204, false],
  ['wildcard origin, allowed', 'https://eu.tenant2.example.net', 204, false],
  ['origin refused', 'https://evil.example.org', 403, false],
  [
    `exact origin, an organization renamed every ${WRITE_EVERY_MS} ms`,
    'https://app0.example.com',
    204,
    true,
  ],
] as const;

async function preflight(bridge: BridgeProcess, origin: string, writer?: Seeded) {
  const stop = writer ? renameEvery(bridge, writer) : undefined;
  const result = await loadPreflights(bridge, origin);
  const writes = await stop?.();
  if (writer && !writes) throw new Error('no rename landed during the round');
  return result;
}

const loadPreflights = (bridge: BridgeProcess, origin: string) =>
  loadWithCpu(bridge.pid, {
    url: `${bridge.url}/api/sso/jwt`,
    method: 'OPTIONS',
    connections: CONNECTIONS,
    duration: DURATION_S,
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
    },
  });

async function statusOf(bridge: BridgeProcess, origin: string) {
  const res = await fetch(`${bridge.url}/api/sso/jwt`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST' },
  });
  return res.status;
}

export async function run() {
  console.log(
    `\n## CORS preflight, ${MANY.toLocaleString('en')} stored origins vs 2 (SQLite, ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds of ${DURATION_S} s, medians)\n`,
  );
  const few = await startBenchBridge();
  const many = await startBenchBridge();
  try {
    const seeded = performance.now();
    const [fewSeeded, manySeeded] = await Promise.all([addOrigins(few, 2), addOrigins(many, MANY)]);
    console.log(`Seeded in ${fmt((performance.now() - seeded) / 1000)} s through the API.\n`);
    console.log(
      '| case | status | req/s, 2 origins | req/s, 60,000 | ratio (per round) | p99 ms, 2 / 60,000 | CPU µs/req, 2 / 60,000 | non-2xx/4xx or errors |',
    );
    console.log('|---|---|---|---|---|---|---|---|');
    for (const [name, origin, status, writes] of CASES) {
      for (const bridge of [few, many]) {
        const got = await statusOf(bridge, origin);
        if (got !== status) throw new Error(`${name}: expected ${status}, got ${got}`);
      }
      const fewWriter = writes ? fewSeeded : undefined;
      const manyWriter = writes ? manySeeded : undefined;
      await preflight(few, origin, fewWriter);
      await preflight(many, origin, manyWriter);
      const a: CpuLoadResult[] = [];
      const b: CpuLoadResult[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        a.push(await preflight(few, origin, fewWriter));
        b.push(await preflight(many, origin, manyWriter));
      }
      const ratios = a.map((r, i) => b[i]!.rps / r.rps);
      // A refusal is the expected answer for the refused origin; count only the unexpected.
      const unexpected = [...a, ...b].reduce(
        (n, r) => n + r.errors + (status === 204 ? r.non2xx : r.total - r.non2xx),
        0,
      );
      console.log(
        `| ${name} | ${status} | ${fmt(median(a.map((r) => r.rps)), 0)} | ${fmt(median(b.map((r) => r.rps)), 0)} | ` +
          `${fmt(median(ratios), 2)} (${ratios.map((r) => fmt(r, 2)).join(', ')}) | ` +
          `${median(a.map((r) => r.p99))} / ${median(b.map((r) => r.p99))} | ` +
          `${fmt(median(a.map((r) => r.cpuUs)), 0)} / ${fmt(median(b.map((r) => r.cpuUs)), 0)} | ${unexpected} |`,
      );
    }
    console.log(
      `\nPeak RSS: ${fmt(few.peakRssMb(), 0)} MB with 2 origins, ${fmt(many.peakRssMb(), 0)} MB with ${MANY.toLocaleString('en')}. ` +
        'Target: every ratio ≥ 0.8 (a lookup costs the same however many origins are stored).',
    );
  } finally {
    await Promise.all([few.stop(), many.stop()]);
  }
}
