// Cost as the data grows: the organizations list, the SSO exchange, the last page of a
// 10,000-organization member's list and a CORS preflight right after an organization write, on
// stores holding 0, 10k, 100k and 1M background users
// (a tenth as many organizations, one membership per user), each against the "empty" store
// (the bench fixture alone) measured in the same round. Rounds are interleaved (every size once
// per round, the order rotated) and the report gives medians of the per-round ratios.
// Run alone: npm run bench growth (GROWTH_ROUNDS=4, GROWTH_SIZES=0,10000,…, GROWTH_ENGINES=sqlite,postgres
// to shorten it).
import os from 'node:os';
import pg from 'pg';
import { createPgDatabase } from '../test/support/bridge';
import { type BridgeData, newBridgeData, removeBridgeData } from '../test/support/bridge-data';
import type { BridgeProcess } from '../test/support/bridge-process';
import { cpuMsOf } from '../test/support/proc-stats';
import { startBenchBridge } from './support/bench-bridge';
import { HEAVY_ORGS, type Loaded, loadGrowthData } from './support/growth-data';
import { fmt, type LoadResult, load, median } from './support/load';
import { signFreshSsoToken } from './support/sso-token';

const SIZES = (process.env.GROWTH_SIZES ?? '0,10000,100000,1000000').split(',').map(Number);
const ROUNDS = Number(process.env.GROWTH_ROUNDS ?? 4);
const DURATION_S = 2;
const WARMUP_S = 1;
const LIST_CONNECTIONS = 16;
const SSO_CONNECTIONS = 32;
/** Uncached fetches of the last page per round, each right after a write that invalidates it. */
const COLD_FETCHES = 15;
/** Within 20% of the empty store: throughput ≥ 0.8 ×, cost (CPU, latency) ≤ 1 / 0.8 ×. */
const MIN_RATE = 0.8;
const MAX_COST = 1.25;

interface Point {
  users: number;
  data: BridgeData;
  loaded: Loaded;
  drop?: () => Promise<void>;
  /** The cursor that fetches the heavy member's last page, found by the first walk. */
  lastCursor?: string;
  walkSeconds?: number;
}

interface Measured extends LoadResult {
  /** CPU time per request of the bridge and (PostgreSQL) its server backends, µs. */
  cpuUs: number;
}

interface Sample {
  list: Measured;
  sso: Measured;
  last: Measured;
  /** Median latency of uncached last-page fetches, ms. */
  coldMs: number;
  /** Median latency of a preflight that names no organization, right after a write to one, ms. */
  preflightMs: number;
}

/** Walks the heavy member's list page by page; returns the cursor of the last page. */
async function walk(bridge: BridgeProcess, key: string): Promise<string> {
  const headers = { authorization: `Bearer ${key}` };
  let cursor = '';
  let lastCursor = '';
  let seen = 0;
  let previous = '';
  for (;;) {
    const query = cursor ? `&cursor=${cursor}` : '';
    const res = await fetch(`${bridge.url}/api/public/organizations?limit=50${query}`, { headers });
    if (res.status !== 200) throw new Error(`walk: ${res.status} ${await res.text()}`);
    const page = (await res.json()) as {
      data: { id: string }[];
      pagination: { nextCursor: string | null; hasMore: boolean };
    };
    for (const org of page.data) {
      if (org.id <= previous) throw new Error(`walk: ${org.id} after ${previous}`);
      previous = org.id;
    }
    seen += page.data.length;
    lastCursor = cursor;
    if (!page.pagination.hasMore) break;
    cursor = page.pagination.nextCursor ?? '';
  }
  // Exact: every organization once, in id order, whatever else the store holds.
  if (seen !== HEAVY_ORGS) throw new Error(`walk saw ${seen} organizations, not ${HEAVY_ORGS}`);
  return lastCursor;
}

/** CPU ms used so far by each of the database's server backends (the bridge's pool). */
async function backendCpu(url: string | undefined): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  if (!url) return out;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    for (const { pid } of rows) {
      try {
        out.set(pid, cpuMsOf(pid));
      } catch {} // gone meanwhile
    }
  } finally {
    await client.end();
  }
  return out;
}

/**
 * One load run, with the CPU it cost: less sensitive than req/s to the other work on the
 * machine, and on PostgreSQL it counts the database's side of each request too.
 */
async function loadWithCpu(
  bridge: BridgeProcess,
  url: string | undefined,
  options: Parameters<typeof load>[0],
): Promise<Measured> {
  const bridgeBefore = cpuMsOf(bridge.pid);
  const before = await backendCpu(url);
  const result = await load(options);
  const bridgeMs = cpuMsOf(bridge.pid) - bridgeBefore;
  let dbMs = 0;
  for (const [pid, ms] of await backendCpu(url)) dbMs += ms - (before.get(pid) ?? 0);
  return { ...result, cpuUs: ((bridgeMs + dbMs) * 1000) / Math.max(1, result.total) };
}

async function measure(point: Point): Promise<Sample> {
  const { fixture } = point.loaded;
  const dbUrl = point.data.databaseUrl;
  const bridge = await startBenchBridge({}, undefined, point.data);
  try {
    if (point.lastCursor === undefined) {
      const started = performance.now();
      point.lastCursor = await walk(bridge, fixture.heavyKey);
      point.walkSeconds = (performance.now() - started) / 1000;
    }
    const get = (key: string, path: string) => ({
      url: `${bridge.url}${path}`,
      headers: { authorization: `Bearer ${key}` },
      connections: LIST_CONNECTIONS,
    });
    const listPath = '/api/public/organizations?limit=50';
    const list = get(fixture.listKey, listPath);
    await load({ ...list, duration: WARMUP_S });
    const listResult = await loadWithCpu(bridge, dbUrl, { ...list, duration: DURATION_S });

    const lastPath = `${listPath}&cursor=${point.lastCursor}`;
    const last = get(fixture.heavyKey, lastPath);
    await load({ ...last, duration: WARMUP_S });
    const lastResult = await loadWithCpu(bridge, dbUrl, { ...last, duration: DURATION_S });

    // Uncached: a write to the member's organization changes the store version, so the page
    // and the reads under it are fetched from the store again; so is "does any organization
    // allow this origin" for a preflight (every organization allows https://*.example.com).
    const cold: number[] = [];
    const preflights: number[] = [];
    for (let i = 0; i < COLD_FETCHES; i++) {
      const patched = await fetch(
        `${bridge.url}/api/public/organizations/${fixture.heavyAdminOrgId}`,
        {
          method: 'PATCH',
          headers: {
            authorization: `Bearer ${fixture.heavyKey}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify({ name: `Heavy org 0 (${i})` }),
        },
      );
      if (patched.status !== 200) throw new Error(`patch: ${patched.status}`);
      const started = performance.now();
      const res = await fetch(`${bridge.url}${lastPath}`, { headers: last.headers });
      await res.arrayBuffer();
      cold.push(performance.now() - started);
      if (res.status !== 200) throw new Error(`last page: ${res.status}`);
      const asked = performance.now();
      const preflight = await fetch(`${bridge.url}/api/sso/jwt`, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
      });
      await preflight.arrayBuffer();
      preflights.push(performance.now() - asked);
      if (preflight.status !== 204) throw new Error(`preflight: ${preflight.status}`);
    }

    let turn = 0;
    const emails = fixture.ssoEmails;
    const sso = {
      url: bridge.url,
      connections: SSO_CONNECTIONS,
      headers: { 'content-type': 'application/json' },
      requests: [
        {
          method: 'POST' as const,
          path: '/api/sso/jwt',
          setupRequest: (req: object) => ({
            ...req,
            body: JSON.stringify({
              jwt: signFreshSsoToken(
                fixture.ssoSecret,
                fixture.ssoOrgId,
                emails[turn++ % emails.length]!,
              ),
            }),
          }),
        },
      ],
    };
    await load({ ...sso, duration: WARMUP_S });
    const ssoResult = await loadWithCpu(bridge, dbUrl, { ...sso, duration: DURATION_S });
    return {
      list: listResult,
      sso: ssoResult,
      last: lastResult,
      coldMs: median(cold),
      preflightMs: median(preflights),
    };
  } finally {
    await bridge.stop();
  }
}

const count = (n: number) =>
  n >= 1_000_000 ? `${fmt(n / 1_000_000, 2)}M` : n >= 1000 ? `${fmt(n / 1000, 1)}k` : String(n);

async function runEngine(engine: 'sqlite' | 'postgres') {
  const points: Point[] = [];
  try {
    for (const users of SIZES) {
      const db = engine === 'postgres' ? await createPgDatabase() : undefined;
      const data = newBridgeData(db?.url);
      const point: Point = { users, data, drop: db?.drop } as Point;
      points.push(point);
      point.loaded = await loadGrowthData(data, users);
    }
    const samples = new Map<Point, Sample[]>(points.map((p) => [p, []]));
    for (let round = 0; round < ROUNDS; round++) {
      // Rotate the order so no size always runs first (after a start) or last.
      for (let i = 0; i < points.length; i++) {
        const point = points[(i + round) % points.length]!;
        samples.get(point)!.push(await measure(point));
      }
    }
    report(engine, points, samples);
  } finally {
    for (const point of points) {
      removeBridgeData(point.data);
      await point.drop?.();
    }
  }
}

function report(engine: string, points: Point[], samples: Map<Point, Sample[]>) {
  const base = samples.get(points[0]!)!;
  type Kind = 'rate' | 'cost';
  const metrics: [string, (s: Sample) => number, Kind][] = [
    ['list req/s', (s) => s.list.rps, 'rate'],
    ['list CPU', (s) => s.list.cpuUs, 'cost'],
    ['SSO req/s', (s) => s.sso.rps, 'rate'],
    ['SSO CPU', (s) => s.sso.cpuUs, 'cost'],
    ['last page req/s', (s) => s.last.rps, 'rate'],
    ['last page CPU', (s) => s.last.cpuUs, 'cost'],
    ['last page uncached', (s) => s.coldMs, 'cost'],
    ['preflight after a write', (s) => s.preflightMs, 'cost'],
  ];
  const missed: string[] = [];
  console.log(`\n### ${engine}\n`);
  console.log(
    '| store: users / orgs / memberships | load s | list req/s | list CPU µs/req | SSO req/s | SSO CPU µs/req | SSO p99 ms | last page req/s | last page CPU µs/req | last page uncached ms | preflight after a write ms |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const point of points) {
    const mine = samples.get(point)!;
    const cells = metrics.map(([name, of, kind]) => {
      const value = fmt(
        median(mine.map(of)),
        kind === 'rate' ? 0 : name.includes('uncached') || name.includes('write') ? 1 : 0,
      );
      if (point === points[0]) return value;
      // Paired per round: each size against the empty store of the same round.
      const ratios = mine.map((s, r) => of(s) / of(base[r]!));
      const ratio = median(ratios);
      const ok = kind === 'rate' ? ratio >= MIN_RATE : ratio <= MAX_COST;
      if (!ok) missed.push(`${count(point.users)} ${name} ${fmt(ratio, 2)} ×`);
      const spread =
        ratios.length > 1 ? ` ${fmt(Math.min(...ratios), 2)}–${fmt(Math.max(...ratios), 2)}` : '';
      return `${value} (${fmt(ratio, 2)} ×${spread})`;
    });
    cells.splice(4, 0, String(median(mine.map((s) => s.sso.p99))));
    const { rows } = point.loaded;
    const failed = mine.reduce(
      (n, s) =>
        n +
        s.list.non2xx +
        s.sso.non2xx +
        s.last.non2xx +
        s.list.errors +
        s.sso.errors +
        s.last.errors,
      0,
    );
    const store = `${count(rows.users)} / ${count(rows.organizations)} / ${count(rows.memberships)}`;
    console.log(
      `| ${point.users === 0 ? 'empty (fixture only): ' : ''}${store}${failed ? ` (**${failed} failed**)` : ''} | ${fmt(point.loaded.loadSeconds, 1)} | ${cells.join(' | ')} |`,
    );
  }
  const walks = points.map((p) => `${count(p.users)}: ${fmt(p.walkSeconds ?? 0, 1)} s`).join(', ');
  console.log(
    `\nMedians of ${ROUNDS} interleaved rounds; (r × a–b): the median of the per-round ratios to the empty store, ` +
      `and their range. Targets: req/s ≥ ${MIN_RATE} ×, CPU per request and the latencies after a write ≤ ${MAX_COST} ×: ` +
      `${missed.length ? `MISSED (${missed.join('; ')})` : 'met'}. ` +
      `First walk through the heavy member's ${HEAVY_ORGS} organizations (200 uncached pages) by background size: ${walks}.\n`,
  );
}

export async function run(): Promise<void> {
  const loadAvg = os.loadavg().map((n) => n.toFixed(1));
  console.log(
    `\n## Cost as the data grows (list limit=50 ${LIST_CONNECTIONS} connections, SSO ${SSO_CONNECTIONS}, ` +
      `last page of a ${HEAVY_ORGS}-organization member ${LIST_CONNECTIONS}, ${DURATION_S} s each)\n`,
  );
  console.log(
    `Every store holds the bench fixture: an API-key user with 50 organizations (the list), a member of ` +
      `${HEAVY_ORGS} organizations (the last page), an SSO organization with 1000 returning members. ` +
      `Background: N users, N/10 organizations, N memberships. ${os.cpus().length} CPUs, load average ${loadAvg.join(' ')} at the start.`,
  );
  const engines = (process.env.GROWTH_ENGINES ?? 'sqlite,postgres').split(',');
  for (const engine of engines) await runEngine(engine === 'postgres' ? 'postgres' : 'sqlite');
}
