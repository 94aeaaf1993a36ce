import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../server/src/store/db';
import { createPgDatabase } from '../support/bridge';
import {
  type BridgeData,
  createApiKey,
  newBridgeData,
  removeBridgeData,
} from '../support/bridge-data';
import { type BridgeProcess, type Exit, startBridgeProcess } from '../support/bridge-process';

const WORKERS = 24;
const LOAD_BEFORE_SIGTERM_MS = 1500;

interface Outcome {
  id: string;
  method: string;
  /** Organization name sent by a POST. */
  name?: string;
  status?: number;
  /** A socket error before a complete answer. */
  error?: string;
  /** Sent on a keep-alive connection that had served a request before. */
  reused: boolean;
  sentAt: number;
  doneAt: number;
}

function send(agent: http.Agent, port: number, key: string, kind: number): Promise<Outcome> {
  const id = `sd-${randomBytes(8).toString('hex')}`;
  const name = kind === 1 ? `Shutdown ${id}` : undefined;
  const [method, path] =
    kind === 0
      ? ['GET', '/api/public/organizations?limit=5']
      : kind === 1
        ? ['POST', '/api/public/organizations']
        : ['GET', '/healthz'];
  const body = name ? JSON.stringify({ name }) : undefined;
  const sentAt = Date.now();
  return new Promise((resolve) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      method,
      path,
      agent,
      headers: {
        authorization: `Bearer ${key}`,
        'x-request-id': id,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
    });
    const done = (o: Partial<Outcome>) =>
      resolve({ id, method, name, reused: req.reusedSocket, sentAt, doneAt: Date.now(), ...o });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => done({ status: res.statusCode! }));
      res.on('aborted', () => done({ error: `aborted after ${res.statusCode}` }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => done({ error: err.code ?? err.message }));
    req.end(body);
  });
}

describe.each(['sqlite', 'postgres'] as const)('SIGTERM under load on %s', (engine) => {
  let database: { url: string; drop(): Promise<void> } | undefined;
  let data: BridgeData;
  let bridge: BridgeProcess;
  const outcomes: Outcome[] = [];
  let sigtermAt = 0;
  let exit: Exit;
  let exitMs = 0;
  /** Request ids the bridge logged as answered. */
  let logged: Set<string>;
  /** Organization names in the store after the exit. */
  let stored: Set<string>;

  beforeAll(async () => {
    database = engine === 'postgres' ? await createPgDatabase() : undefined;
    data = newBridgeData(database?.url);
    bridge = await startBridgeProcess({
      data,
      // Probes (a third of the load is /healthz) are off the access log by default.
      env: {
        LOG_LEVEL: 'info',
        BRIDGE_RATE_LIMIT_PER_MINUTE: '1000000',
        BRIDGE_LOG_PROBES: 'true',
      },
    });
    const { key } = await createApiKey(data);
    const agent = new http.Agent({ keepAlive: true, maxSockets: WORKERS });
    let exited = false;
    void bridge.exited.then(() => {
      exited = true;
    });
    const worker = async (w: number) => {
      for (let i = w; !exited; i++) {
        const o = await send(agent, bridge.port, key, i % 3);
        outcomes.push(o);
        // The port is closed: new connections are refused from now on.
        if (o.error === 'ECONNREFUSED') return;
      }
    };
    const workers = Array.from({ length: WORKERS }, (_, w) => worker(w));
    await new Promise((r) => setTimeout(r, LOAD_BEFORE_SIGTERM_MS));
    sigtermAt = Date.now();
    bridge.child.kill('SIGTERM');
    const killer = setTimeout(() => bridge.child.kill('SIGKILL'), 15_000);
    exit = await bridge.exited;
    exitMs = Date.now() - sigtermAt;
    clearTimeout(killer);
    await Promise.all(workers);
    agent.destroy();

    logged = new Set(
      bridge
        .stdout()
        .split('\n')
        .filter((line) => line.includes('"msg":"request"'))
        .map((line) => JSON.parse(line).reqId as string),
    );
    const store = openStore({ databaseUrl: data.databaseUrl, dataDir: data.dataDir, poolSize: 1 });
    try {
      const rows = await store.db.selectFrom('organizations').select('name').execute();
      stored = new Set(rows.map((r) => r.name));
    } finally {
      await store.close();
    }
  }, 60_000);

  afterAll(async () => {
    if (bridge?.alive()) bridge.child.kill('SIGKILL');
    await database?.drop();
    if (data) removeBridgeData(data);
  });

  it('was under load: requests in flight at SIGTERM finished after it', () => {
    const answered = outcomes.filter((o) => o.status !== undefined);
    expect(answered.length).toBeGreaterThan(WORKERS);
    const spanning = answered.filter((o) => o.sentAt < sigtermAt && o.doneAt > sigtermAt);
    expect(spanning.length).toBeGreaterThan(0);
    expect(spanning.every((o) => o.status! < 300)).toBe(true);
  });

  it('answers every accepted request without a 5xx', () => {
    const failed = outcomes.filter((o) => o.status !== undefined && o.status >= 500);
    expect(failed).toEqual([]);
  });

  it('drops no accepted request: a socket error is a refused or an unread connection', () => {
    const unexplained = outcomes.filter(
      (o) =>
        o.error !== undefined &&
        o.error !== 'ECONNREFUSED' &&
        // close() resets connections with no request in progress: idle keep-alive ones and ones
        // just opened, whose request the server had not read. Such a request was never accepted:
        // not logged, not stored (a request being handled is never reset, and exit 0 shows the
        // grace timer did not cut one). Clients retry these (RFC 9112 §9.3.1).
        !(
          ['ECONNRESET', 'EPIPE', 'socket hang up'].includes(o.error) &&
          !logged.has(o.id) &&
          !(o.name && stored.has(o.name))
        ),
    );
    expect(unexplained).toEqual([]);
  });

  it('logs and stores what it answered', () => {
    for (const o of outcomes.filter((x) => x.status !== undefined)) {
      expect(logged.has(o.id), o.id).toBe(true);
      if (o.name && o.status === 201) expect(stored.has(o.name), o.name).toBe(true);
    }
  });

  it('exits 0 within 10 s', () => {
    expect(exit).toEqual({ code: 0, signal: null });
    expect(exitMs).toBeLessThan(10_000);
  });
});
