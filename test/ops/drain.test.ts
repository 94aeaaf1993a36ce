import http from 'node:http';
import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase } from '../support/bridge';
import { newBridgeData, removeBridgeData } from '../support/bridge-data';
import { type BridgeProcess, buildBridge, startBridgeProcess } from '../support/bridge-process';
import { until } from '../support/wait';
import { adminWithOrg, dataSourceAt, type RoguePg, startRoguePg, verifyBody } from './support';

interface Answer {
  status: number;
  connection: string | undefined;
  body: string;
}

/** One request on `agent`; resolves with the answer, rejects on a reset. */
function send(
  agent: http.Agent,
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      agent,
      method: options.method ?? 'GET',
      headers: options.headers,
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c) => {
        body += c;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode!, connection: res.headers.connection, body }),
      );
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

beforeAll(async () => {
  await buildBridge();
}, 120_000);

describe('SIGTERM drains: requests in flight and on idle keep-alive sockets are answered', () => {
  let bridge: BridgeProcess;
  let rogue: RoguePg;
  let verify: Answer;
  let justAfter: Answer | Error;
  let duringDrain: Answer | Error;
  let newConnection: string;
  let exitCode: number | null;
  let exitMs: number;

  beforeAll(async () => {
    rogue = await startRoguePg('silent');
    bridge = await startBridgeProcess({
      env: {
        LOG_LEVEL: 'info',
        BRIDGE_ALLOW_PRIVATE_NETWORKS: 'true',
        BRIDGE_VERIFY_TIMEOUT_MS: '3000',
      },
    });
    const data = {
      dataDir: bridge.env.BRIDGE_DATA_DIR!,
      databaseUrl: undefined,
      secretKey: '',
      sessionSecret: '',
    };
    const { key, orgId } = await adminWithOrg(data, bridge.url);
    // Two idle keep-alive sockets, each after one request.
    const idle = [
      new http.Agent({ keepAlive: true, maxSockets: 1 }),
      new http.Agent({ keepAlive: true, maxSockets: 1 }),
    ];
    for (const agent of idle) await send(agent, `${bridge.url}/livez`);
    // A verify in flight: the rogue server never answers, so it lasts the verify timeout (3 s).
    const inFlight = send(
      new http.Agent(),
      `${bridge.url}/api/public/organizations/${orgId}/data-sources/verify`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(verifyBody(rogue.port)),
      },
    );
    await until(
      'the verify to connect',
      async () => rogue.connections(),
      (n) => n > 0,
    );
    const started = Date.now();
    bridge.child.kill('SIGTERM');
    // A request already on its way on an idle socket as the signal lands.
    await new Promise((resolve) => setTimeout(resolve, 10));
    justAfter = await send(idle[0]!, `${bridge.url}/livez`).catch((err: Error) => err);
    await bridge.waitForOutput('shutting down');
    duringDrain = await send(idle[1]!, `${bridge.url}/readyz`).catch((err: Error) => err);
    // A fresh TCP connection (fetch would reuse one of its pooled keep-alive sockets).
    newConnection = await new Promise<string>((resolve) => {
      const socket = net.connect(bridge.port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    });
    verify = await inFlight;
    exitCode = (await bridge.exited).code;
    exitMs = Date.now() - started;
  }, 60_000);
  afterAll(async () => {
    await bridge.stop();
    await rogue.close();
  });

  it('answers the verify in flight (its timeout, 422) with Connection: close', () => {
    expect(verify.status).toBe(422);
    expect(verify.connection).toBe('close');
  });

  it('answers a request sent on an idle keep-alive socket 10 ms after SIGTERM, not reset', () => {
    expect(justAfter).not.toBeInstanceOf(Error);
    expect((justAfter as Answer).status).toBe(200);
    expect((justAfter as Answer).connection).toBe('close');
  });

  it('answers /readyz 503 shutting_down during the drain, so the balancer stops sending', () => {
    expect(duringDrain).not.toBeInstanceOf(Error);
    const answer = duringDrain as Answer;
    expect(answer.status).toBe(503);
    expect(answer.connection).toBe('close');
    expect(JSON.parse(answer.body).error).toMatchObject({
      title: 'ServiceUnavailable',
      code: 'shutting_down',
    });
  });

  it('accepts no new connection once draining', () => {
    expect(newConnection).toBe('ECONNREFUSED');
  });

  it('exits 0 once everything is answered, within the verify timeout plus the idle linger', () => {
    expect(exitCode).toBe(0);
    expect(exitMs).toBeLessThan(3000 + 1000 + 2000);
  });
});

describe('SIGTERM hands a running sync back at the end of the grace period', () => {
  let database: Awaited<ReturnType<typeof createPgDatabase>>;
  let rogue: RoguePg;
  let first: BridgeProcess;
  let second: BridgeProcess;
  let firstExit: number | null;
  let firstExitMs: number;
  let afterExit: { last_sync_status: string; sync_started_at: string | null };
  let syncStartedBy: { first: string; second: string };

  const row = async (id: string) => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query(
        'select last_sync_status, sync_started_at from data_sources where id = $1',
        [id],
      );
      return rows[0] as { last_sync_status: string; sync_started_at: string | null };
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    database = await createPgDatabase();
    rogue = await startRoguePg('silent');
    const data = newBridgeData(database.url);
    const env = {
      LOG_LEVEL: 'info',
      BRIDGE_BACKGROUND_JOBS: 'true',
      BRIDGE_ALLOW_PRIVATE_NETWORKS: 'true',
      BRIDGE_SYNC_TIMEOUT_S: '30',
      BRIDGE_SHUTDOWN_GRACE_S: '3',
    };
    first = await startBridgeProcess({ data, env });
    const { key, orgId } = await adminWithOrg(data, first.url);
    const created = await fetch(`${first.url}/api/public/organizations/${orgId}/data-sources`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(dataSourceAt(rogue.port)),
    });
    const id = ((await created.json()) as { data: { id: string } }).data.id;
    // The sync after create hangs on the rogue server (30 s deadline) in the first instance.
    const held = await until(
      'the first sync',
      () => row(id),
      (r) => r.last_sync_status === 'SYNCING',
    );
    second = await startBridgeProcess({ data, env });
    const started = Date.now();
    first.child.kill('SIGTERM');
    firstExit = (await first.exited).code;
    firstExitMs = Date.now() - started;
    afterExit = await row(id);
    // The second instance takes the handed-back job at once, not after the 30 s lease.
    const taken = await until(
      'the second instance to take the sync',
      () => row(id),
      (r) => r.last_sync_status === 'SYNCING' && r.sync_started_at !== held.sync_started_at,
      10_000,
    );
    syncStartedBy = { first: held.sync_started_at!, second: taken.sync_started_at! };
    removeBridgeData(data);
  }, 90_000);
  afterAll(async () => {
    await first?.stop();
    await second?.stop();
    await rogue.close();
    await database.drop();
  });

  it('exits within BRIDGE_SHUTDOWN_GRACE_S, with 1: the sync did not finish', () => {
    expect(firstExitMs).toBeLessThan(3000 + 2000);
    expect(firstExit).toBe(1);
  });

  it('leaves the data source as it was before the sync, not SYNCING', () => {
    // Read once the first instance exited: the second, already running, may have taken the
    // handed-back sync by then (its own start time), never the first's.
    if (afterExit.last_sync_status === 'PENDING') {
      expect(afterExit.sync_started_at).toBeNull();
    } else {
      expect(afterExit.last_sync_status).toBe('SYNCING');
      expect(afterExit.sync_started_at).not.toBe(syncStartedBy.first);
      expect(afterExit.sync_started_at).toBe(syncStartedBy.second);
    }
  });

  it('another instance takes the sync over at once', () => {
    expect(syncStartedBy.second > syncStartedBy.first).toBe(true);
    expect(first.stdout()).toContain('sync handed back: shutting down');
  });
});
