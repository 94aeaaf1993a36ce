import net from 'node:net';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase } from '../support/bridge';
import { newBridgeData, removeBridgeData } from '../support/bridge-data';
import { buildBridge, startBridgeProcess } from '../support/bridge-process';
import { freePort } from '../support/free-port';
import { jsonLines } from './support';

beforeAll(async () => {
  await buildBridge();
}, 120_000);

describe('instances started together on an empty PostgreSQL database', () => {
  const TRIALS = 3;
  const INSTANCES = 4;
  const trials: { ready: number[]; exits: (number | null)[]; queues: string[] }[] = [];

  beforeAll(async () => {
    for (let t = 0; t < TRIALS; t++) {
      const database = await createPgDatabase();
      const data = newBridgeData(database.url);
      // Job engine on: each instance starts pg-boss, whose schema and queues came with migration.
      const starts = await Promise.allSettled(
        Array.from({ length: INSTANCES }, () =>
          startBridgeProcess({ data, env: { BRIDGE_BACKGROUND_JOBS: 'true' } }),
        ),
      );
      const up = starts.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
      const ready = await Promise.all(up.map(async (b) => (await fetch(`${b.url}/readyz`)).status));
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const { rows } = await client.query('select name from pgboss.queue order by name');
      await client.end();
      const exits = await Promise.all(up.map(async (b) => (await b.stop()).code));
      trials.push({ ready, exits, queues: rows.map((r) => r.name) });
      for (const s of starts) if (s.status === 'rejected') console.error(s.reason);
      removeBridgeData(data);
      await database.drop();
    }
  }, 240_000);

  it('all come up, every trial', () => {
    expect(trials.map((t) => t.ready)).toEqual(Array(TRIALS).fill(Array(INSTANCES).fill(200)));
  });

  it("creates the job engine's queues once, under the migration lock", () => {
    for (const t of trials) {
      expect(t.queues).toEqual([
        'bridgekit-health',
        'bridgekit-health-sweep',
        'bridgekit-sync',
        'bridgekit-sync-sweep',
        'bridgekit-webhook',
      ]);
    }
  });

  it('all drain and exit 0 on SIGTERM', () => {
    expect(trials.map((t) => t.exits)).toEqual(Array(TRIALS).fill(Array(INSTANCES).fill(0)));
  });
});

describe('start-up failures', () => {
  /** Starts a bridge expected to fail; its exit code and stderr's JSON lines. */
  async function failing(env: Record<string, string>) {
    const data = newBridgeData();
    const bridge = await startBridgeProcess({ data, env, ready: 'none' });
    const exit = await bridge.exited;
    removeBridgeData(data);
    return {
      exit,
      stdout: bridge.stdout(),
      stderr: bridge.stderr(),
      lines: jsonLines(bridge.stderr()),
    };
  }

  it('an unparseable DATABASE_URL: one JSON line naming the variable, never the password', async () => {
    const { exit, lines, stderr } = await failing({
      DATABASE_URL: 'postgres://app:s3cr#t/pw@db.internal:5x432/bridge',
    });
    expect(exit.code).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 60, variables: ['DATABASE_URL'] });
    expect(lines[0]!.msg).toContain('DATABASE_URL: is not a parseable URL');
    expect(stderr).not.toContain('s3cr');
  });

  it('an unreachable database: retried for BRIDGE_STARTUP_RETRY_S, then JSON naming the store and DATABASE_URL', async () => {
    const port = await freePort();
    const started = Date.now();
    const { exit, lines, stdout } = await failing({
      DATABASE_URL: `postgres://app:hunter22@127.0.0.1:${port}/bridge`,
      BRIDGE_STARTUP_RETRY_S: '2',
    });
    const ms = Date.now() - started;
    expect(exit.code).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 60, dependency: 'store', variable: 'DATABASE_URL' });
    expect(lines[0]!.msg).toMatch(/^the store is unreachable .*; gave up after 2 s$/);
    expect(lines[0]!.msg).not.toContain('hunter22');
    // Warned while retrying (LOG_LEVEL=warn), at least twice in 2 s.
    const retries = jsonLines(stdout).filter(
      (l) => l.msg === 'store unreachable at start; retrying',
    );
    expect(retries.length).toBeGreaterThanOrEqual(2);
    expect(ms).toBeGreaterThanOrEqual(2000);
    expect(ms).toBeLessThan(20_000);
  });

  it('a database that does not exist: JSON naming the store and DATABASE_URL, at once', async () => {
    const { exit, lines } = await failing({
      DATABASE_URL: 'postgres://postgres:hunter22@127.0.0.1:5432/bk_no_such_database',
    });
    expect(exit.code).toBe(1);
    expect(lines).toEqual([
      expect.objectContaining({ level: 60, dependency: 'store', variable: 'DATABASE_URL' }),
    ]);
    expect(lines[0]!.msg).toMatch(
      /^the store refused the connection \(database "bk_no_such_database" does not exist\)$/,
    );
    expect(JSON.stringify(lines)).not.toContain('hunter22');
  });

  it('a port in use: JSON "cannot listen" naming PORT, and never "listening" first', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      const { exit, lines, stdout } = await failing({ PORT: String(port), LOG_LEVEL: 'info' });
      expect(exit.code).toBe(1);
      expect(lines).toEqual([
        expect.objectContaining({
          level: 60,
          variables: ['PORT'],
          code: 'EADDRINUSE',
          msg: `cannot listen on 127.0.0.1:${port}`,
        }),
      ]);
      expect(stdout).not.toContain('listening');
    } finally {
      holder.close();
    }
  });

  it('BRIDGE_SYNC_INTERVAL_S=30 alone starts: the sync deadline follows the interval', async () => {
    const bridge = await startBridgeProcess({ env: { BRIDGE_SYNC_INTERVAL_S: '30' } });
    expect((await fetch(`${bridge.url}/livez`)).status).toBe(200);
    expect((await bridge.stop()).code).toBe(0);
  });
});
