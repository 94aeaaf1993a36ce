import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { openStore } from '../server/src/store/db';
import { buildPreviousRelease } from '../test/ops/previous-release';
import { createPgDatabase } from '../test/support/bridge';
import {
  type BridgeData,
  createApiKey,
  newBridgeData,
  removeBridgeData,
} from '../test/support/bridge-data';
import type { BridgeProcess } from '../test/support/bridge-process';
import { cpuMsOf, parentOf, treeCpuMsOf } from '../test/support/proc-stats';
import { startBenchBridge } from './support/bench-bridge';
import { type CpuLoadResult, fmt, load, loadWithCpu, median } from './support/load';

const ORGS = 50;
const ENDPOINTS = 10;
const PER_MINUTE = 1000;
const CONNECTIONS = 16;
const DURATION_S = Number(process.env.BENCH_WEBHOOKS_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_WEBHOOKS_ROUNDS ?? 6);
/** How long the receiver takes to answer: deliveries are in flight, not done at once. */
const RECEIVER_DELAY_MS = 50;

/** A receiver on loopback that answers 204 after a short delay and counts what it got. */
async function startReceiver() {
  let received = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      setTimeout(() => res.writeHead(204).end(), RECEIVER_DELAY_MS);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    count: () => received,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

async function seed(data: BridgeData, receiverUrl: string) {
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
    const endpoints: string[] = [];
    for (let i = 0; i < ENDPOINTS; i++) {
      const path = `/api/public/organizations/${orgs[0]}/webhook-endpoints`;
      const body = { url: `${receiverUrl}/hook/${i}`, eventTypes: ['organization.updated'] };
      endpoints.push(`${path}/${(await post(path, body)).id}/test`);
    }
    return { headers, endpoints };
  } finally {
    await bridge.stop();
  }
}

/**
 * Queues PER_MINUTE test events a minute, round robin over the endpoints, until stopped. Sent
 * with node:http over kept-alive connections: this process also runs the load, so a heavier
 * client (fetch costs several times the CPU per request) would slow the load it measures.
 */
function produce(baseUrl: string, headers: Record<string, string>, endpoints: string[]) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  let i = 0;
  let failed = 0;
  const timer = setInterval(() => {
    const path = endpoints[i++ % endpoints.length]!;
    const req = http.request(`${baseUrl}${path}`, { method: 'POST', headers, agent }, (res) => {
      if (res.statusCode !== 202) failed++;
      res.resume();
    });
    req.on('error', () => failed++);
    req.end();
  }, 60_000 / PER_MINUTE);
  return {
    stop: () => {
      clearInterval(timer);
      agent.destroy();
    },
    failed: () => failed,
    queued: () => i - failed,
  };
}

/**
 * Deletes the deliveries a bridge with background jobs off left queued, so the next side that
 * delivers sends only its own window's events, not a backlog.
 */
async function dropQueued(data: BridgeData) {
  const store = openStore({ databaseUrl: data.databaseUrl, dataDir: data.dataDir, poolSize: 1 });
  try {
    await store.db.deleteFrom('webhookDeliveries').where('status', '=', 'pending').execute();
  } finally {
    await store.close();
  }
}

/** The PostgreSQL server's postmaster (its backends are its children), if it runs here. */
async function postmasterOf(url: string): Promise<number | undefined> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    return parentOf(rows[0]!.pid);
  } catch {
    return undefined;
  } finally {
    await client.end();
  }
}

/**
 * Runs `body` against a bridge on `data` (background jobs on or off, this build or `bundle`),
 * with events queued 1,000 a minute meanwhile if `events`; then stops both and, with jobs off,
 * deletes what was queued (see dropQueued).
 */
async function withBridge<T>(
  data: BridgeData,
  seeded: Awaited<ReturnType<typeof seed>>,
  options: { events: boolean; jobs: boolean; bundle?: string },
  body: (bridge: BridgeProcess, producer: ReturnType<typeof produce> | undefined) => Promise<T>,
): Promise<T> {
  const bridge = await startBenchBridge(
    {
      BRIDGE_BACKGROUND_JOBS: String(options.jobs),
      BRIDGE_HEALTH_INTERVAL_S: '86400',
      BRIDGE_SYNC_INTERVAL_S: '86400',
      BRIDGE_ALLOW_PRIVATE_NETWORKS: 'true',
    },
    undefined,
    data,
    options.bundle,
  );
  const producer = options.events
    ? produce(bridge.url, seeded.headers, seeded.endpoints)
    : undefined;
  try {
    return await body(bridge, producer);
  } finally {
    producer?.stop();
    await bridge.stop();
    if (!options.jobs) await dropQueued(data);
  }
}

/**
 * What one event costs with no other load: the bridge's CPU (and on PostgreSQL the server's, all
 * its processes) over a window with events queued, less the same window idle, per event queued;
 * once with background jobs off (the queuing requests alone) and once delivering, so the
 * delivery's own part is the difference. Steadier than the load ratios, which move with the
 * machine.
 */
async function costPerEvent(
  data: BridgeData,
  seeded: Awaited<ReturnType<typeof seed>>,
  receiver: Awaited<ReturnType<typeof startReceiver>>,
  postmaster: number | undefined,
) {
  const window = (events: boolean, jobs: boolean) =>
    withBridge(data, seeded, { events, jobs }, async (bridge, producer) => {
      await delay(2_000);
      const bridgeBefore = cpuMsOf(bridge.pid);
      const pgBefore = postmaster ? treeCpuMsOf(postmaster) : 0;
      const queuedBefore = producer?.queued() ?? 0;
      const receivedBefore = receiver.count();
      await delay(DURATION_S * 1000);
      return {
        bridgeMs: cpuMsOf(bridge.pid) - bridgeBefore,
        pgMs: postmaster ? treeCpuMsOf(postmaster) - pgBefore : 0,
        events: (producer?.queued() ?? 0) - queuedBefore,
        delivered: receiver.count() - receivedBefore,
      };
    });
  type Window = Awaited<ReturnType<typeof window>>;
  const perEvent = (busy: Window, idle: Window) => ({
    bridgeUs: ((busy.bridgeMs - idle.bridgeMs) * 1000) / Math.max(1, busy.events),
    pgUs: ((busy.pgMs - idle.pgMs) * 1000) / Math.max(1, busy.events),
  });
  const delivering = perEvent(await window(true, true), await window(false, true));
  const queuing = perEvent(await window(true, false), await window(false, false));
  return { delivering, queuing };
}

/** One side of a round: deliveries flowing or not, on this build or another commit's. */
interface Side {
  name: string;
  deliveries: boolean;
  bundle?: string;
  /** Background jobs off: the events are queued, never delivered. */
  queueOnly?: boolean;
}

async function round(
  data: BridgeData,
  seeded: Awaited<ReturnType<typeof seed>>,
  receiver: Awaited<ReturnType<typeof startReceiver>>,
  side: Side,
) {
  const options = { events: side.deliveries, jobs: !side.queueOnly, bundle: side.bundle };
  return withBridge(data, seeded, options, async (bridge, producer) => {
    const url = `${bridge.url}/api/public/organizations?limit=50`;
    const { headers } = seeded;
    await load({ url, headers, connections: CONNECTIONS, duration: 2 });
    const before = receiver.count();
    const result = await loadWithCpu(bridge.pid, {
      url,
      headers,
      connections: CONNECTIONS,
      duration: DURATION_S,
    });
    const delivered = receiver.count() - before;
    return { result, delivered, failed: producer?.failed() ?? 0 };
  });
}

/**
 * GET /api/public/organizations throughput while webhook deliveries flow (1,000 a minute, queued
 * through `POST …/webhook-endpoints/{id}/test` and delivered by the bridge's job engine to a
 * loopback receiver that answers in 50 ms) vs with none, on the same data. Each round measures
 * every side back to back, starting from a different side each round, so drift in the
 * machine's load falls on all; the result is the median of the rounds' own ratios, with their
 * spread. Two ratios: delivering vs none (the queuing requests count against it: they are API
 * requests too) and delivering vs the same queuing requests with background jobs off (what
 * delivering itself costs the API). BENCH_WEBHOOKS_AGAINST=<commit> adds that commit's build
 * delivering the same load, for an A/B of the delivery code.
 */
export async function run() {
  const against = process.env.BENCH_WEBHOOKS_AGAINST;
  const previous = against ? await buildPreviousRelease(against) : undefined;
  const sides: Side[] = [
    { name: 'none', deliveries: false },
    { name: `${PER_MINUTE}/min queued, none sent`, deliveries: true, queueOnly: true },
    { name: `${PER_MINUTE}/min delivered`, deliveries: true },
    ...(previous && against
      ? [{ name: `${PER_MINUTE}/min on ${against}`, deliveries: true, bundle: previous.bundle }]
      : []),
  ];
  console.log(
    `\n## Webhooks: GET /organizations with ${PER_MINUTE} deliveries/min in flight vs none ` +
      `(${ENDPOINTS} endpoints, ${CONNECTIONS} connections, ${DURATION_S} s per side, ${ROUNDS} rounds, each side first in turn)\n`,
  );
  const receiver = await startReceiver();
  try {
    for (const engine of (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',')) {
      const db = engine === 'postgres' ? await createPgDatabase() : undefined;
      const data = newBridgeData(db?.url);
      try {
        const seeded = await seed(data, receiver.url);
        const cost = await costPerEvent(
          data,
          seeded,
          receiver,
          db ? await postmasterOf(db.directUrl) : undefined,
        );
        const results = sides.map(() => [] as CpuLoadResult[]);
        const delivered = sides.map(() => [] as number[]);
        let failed = 0;
        for (let i = 0; i < ROUNDS; i++) {
          for (let k = 0; k < sides.length; k++) {
            const at = (i + k) % sides.length;
            const r = await round(data, seeded, receiver, sides[at]!);
            results[at]!.push(r.result);
            delivered[at]!.push(r.delivered);
            failed += r.failed;
          }
        }
        const idle = results[0]!;
        const rps = (rs: CpuLoadResult[]) => median(rs.map((r) => r.rps));
        const cpu = (rs: CpuLoadResult[]) => median(rs.map((r) => r.cpuUs));
        const span = (xs: number[]) => `${fmt(Math.min(...xs), 2)}–${fmt(Math.max(...xs), 2)}`;
        console.log(`### ${engine}\n`);
        console.log(
          '| deliveries | req/s (median) | rounds req/s | ratio to none (median of rounds) | spread | bridge CPU µs/req (median) | CPU ratio to none | p99 ms (median) | non-2xx | delivered per window |',
        );
        console.log('|---|---|---|---|---|---|---|---|---|---|');
        const ratios: number[][] = [];
        sides.forEach((side, s) => {
          const rs = results[s]!;
          const ratio = rs.map((r, i) => r.rps / idle[i]!.rps);
          const cpuRatio = rs.map((r, i) => r.cpuUs / idle[i]!.cpuUs);
          ratios.push(ratio);
          console.log(
            `| ${side.name} | ${fmt(rps(rs), 0)} | ${rs.map((r) => fmt(r.rps, 0)).join(', ')} | ${s === 0 ? '—' : fmt(median(ratio), 2)} | ${s === 0 ? '—' : span(ratio)} | ${fmt(cpu(rs), 0)} | ${s === 0 ? '—' : fmt(median(cpuRatio), 2)} | ${median(rs.map((r) => r.p99))} | ${rs.reduce((n, r) => n + r.non2xx, 0)} | ${side.deliveries ? delivered[s]!.join(', ') : '—'} |`,
          );
        });
        const all = median(ratios[2]!);
        const own = median(results[2]!.map((r, i) => r.rps / results[1]![i]!.rps));
        const expected = Math.round((PER_MINUTE / 60) * DURATION_S);
        const verdict = (r: number) =>
          `${fmt(r, 2)} (target ≥ 0.90: ${r >= 0.9 ? 'met' : 'MISSED'})`;
        console.log(
          `\ndelivered vs none (the queuing requests and the deliveries): ${verdict(all)}; ` +
            `delivered vs queued, none sent (the deliveries alone, same requests): ${verdict(own)}; ` +
            `${expected} events queued per ${DURATION_S} s window; test events not queued: ${failed}`,
        );
        const us = (c: { bridgeUs: number; pgUs: number }) =>
          `bridge ${fmt(c.bridgeUs, 0)} µs${db ? `, PostgreSQL ${fmt(c.pgUs, 0)} µs` : ''}`;
        const delivery = {
          bridgeUs: cost.delivering.bridgeUs - cost.queuing.bridgeUs,
          pgUs: cost.delivering.pgUs - cost.queuing.pgUs,
        };
        console.log(
          `CPU per event with no other load (${DURATION_S} s windows less idle ones): queued and delivered ${us(cost.delivering)}; the queuing request ${us(cost.queuing)}; so the delivery ${us(delivery)}\n`,
        );
      } finally {
        removeBridgeData(data);
        await db?.drop();
      }
    }
  } finally {
    await receiver.close();
    previous?.remove();
  }
}
