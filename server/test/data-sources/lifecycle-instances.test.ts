import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestBridge } from '../../../test/support/bridge';
import { type PgServer, startPgServer } from '../../../test/support/pg-server';
import { createSharedPg, type SharedPg, startBridgeOn } from '../sso/support';

const HEALTH_S = 3;
const SYNC_S = 6;
const ENV = {
  BRIDGE_BACKGROUND_JOBS: 'true',
  BRIDGE_HEALTH_INTERVAL_S: String(HEALTH_S),
  BRIDGE_SYNC_INTERVAL_S: String(SYNC_S),
  BRIDGE_SYNC_TIMEOUT_S: '2',
  LOG_LEVEL: 'debug',
};

interface JobLine {
  job: 'health' | 'sync';
  dataSourceId: string;
  slot: string | null;
}

const jobLines = (bridge: TestBridge): JobLine[] =>
  bridge.logs.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'data source job');

/**
 * Two bridges on one PostgreSQL share the scheduled work through pg-boss: each data source's
 * health check runs once per health interval and its sync once per sync interval, on one
 * instance or the other, never on both, and none is skipped.
 */
describe('scheduled jobs across two bridges on one PostgreSQL', () => {
  let pg: SharedPg;
  let target: PgServer;
  let one: TestBridge;
  let two: TestBridge;

  beforeAll(async () => {
    target = await startPgServer();
    pg = await createSharedPg();
    one = await startBridgeOn(pg, ENV);
    two = await startBridgeOn(pg, ENV);
  });
  afterAll(async () => {
    await one?.stop();
    await two?.stop();
    await pg?.drop();
    await target?.destroy();
  });

  it('runs each scheduled check and sync exactly once per interval', async () => {
    const { key } = await one.newUser();
    const org = await one.request('POST', '/api/public/organizations', {
      key,
      body: { name: 'Two instances' },
    });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const created = await one.request(
        'POST',
        `/api/public/organizations/${org.body.data.id}/data-sources`,
        {
          key,
          body: {
            dialect: 'POSTGRES',
            displayName: `Source ${i}`,
            host: '127.0.0.1',
            port: target.port,
            username: 'postgres',
            sslEnabled: false,
          },
        },
      );
      expect(created.status).toBe(201);
      ids.push(created.body.data.id);
    }
    const from = Date.now();
    await new Promise((r) => setTimeout(r, 4 * SYNC_S * 1000));
    const to = Date.now();
    await one.stop();
    await two.stop();

    const lines = [...jobLines(one), ...jobLines(two)].filter((l) => ids.includes(l.dataSourceId));
    const scheduled = lines.filter((l) => l.slot !== null);
    // Never twice for one data source in one slot, whichever instance ran it.
    const counts = new Map<string, number>();
    for (const l of scheduled) {
      const k = `${l.job} ${l.dataSourceId} ${l.slot}`;
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    expect([...counts].filter(([, n]) => n !== 1)).toEqual([]);
    // Every data source in every slot that lay wholly inside the window (a second to finish).
    for (const [job, seconds] of [
      ['health', HEALTH_S],
      ['sync', SYNC_S],
    ] as const) {
      const slots: string[] = [];
      const ms = seconds * 1000;
      for (let t = Math.ceil(from / ms) * ms; t + ms + 1000 <= to; t += ms) {
        slots.push(new Date(t).toISOString());
      }
      expect(slots.length).toBeGreaterThanOrEqual(job === 'health' ? 5 : 2);
      for (const slot of slots) {
        for (const id of ids)
          expect(counts.get(`${job} ${id} ${slot}`), `${job} ${id} ${slot}`).toBe(1);
      }
    }
    // And the sync requested by each create ran once, outside the schedule.
    for (const id of ids) {
      expect(lines.filter((l) => l.dataSourceId === id && l.slot === null)).toHaveLength(1);
    }
  }, 60_000);
});
