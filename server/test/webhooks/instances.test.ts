import { pageOf, WebhookDelivery } from '@bridgekit/contract';
import { sql } from 'kysely';
import PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestBridge } from '../../../test/support/bridge';
import { until } from '../../../test/support/wait';
import { orgWithEndpoint } from '../../../test/support/webhook-endpoint';
import { WEBHOOK_QUEUE } from '../../src/lifecycle/job-schema';
import type { Lifecycle } from '../../src/lifecycle/lifecycle';
import { startJobs } from '../../src/lifecycle/start';
import { leaseDeliveries } from '../../src/webhooks/store';
import { createSharedPg, type SharedPg, startBridgeOn } from '../sso/support';
import { type Receiver, startReceiver } from './receiver';

const EVENTS = 60;

describe('webhook delivery by two bridges on one PostgreSQL', () => {
  let pg: SharedPg;
  let one: TestBridge;
  let two: TestBridge;
  let dispatchers: Lifecycle[] = [];
  let receiver: Receiver;

  beforeAll(async () => {
    pg = await createSharedPg();
    one = await startBridgeOn(pg);
    two = await startBridgeOn(pg);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await Promise.all(dispatchers.map((d) => d.stop()));
    await one?.stop();
    await two?.stop();
    await pg?.drop();
    await receiver?.close();
  });

  it('sends each event once: both claim from the same outbox, neither takes what the other holds', async () => {
    const { key } = await one.newUser();
    const org = (
      await one.request('POST', '/api/public/organizations', { key, body: { name: 'Twice' } })
    ).body.data;
    const base = `/api/public/organizations/${org.id}/webhook-endpoints`;
    // Four endpoints, so both instances have work in flight at once.
    const endpoints: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await one.request('POST', base, {
        key,
        body: { url: `${receiver.url}?n=${i}`, eventTypes: ['organization.updated'] },
      });
      endpoints.push(res.body.data.id);
    }
    receiver.answer.delayMs = 20;
    dispatchers = [
      await startJobs(one.deps, { dataSources: false, webhooks: { pollMs: 20, perEndpoint: 4 } }),
      await startJobs(two.deps, { dataSources: false, webhooks: { pollMs: 20, perEndpoint: 4 } }),
    ];
    for (let i = 0; i < EVENTS; i++) {
      const via = i % 2 === 0 ? one : two;
      const res = await via.request('PATCH', `/api/public/organizations/${org.id}`, {
        key,
        body: { name: `Twice ${i}` },
      });
      expect(res.status).toBe(200);
    }
    const total = EVENTS * endpoints.length;
    await until(
      'every delivery',
      async () => receiver.received.length,
      (n) => n >= total,
      60_000,
    );
    // Settle: anything sent twice would have arrived by the time every log says succeeded.
    for (const id of endpoints) {
      const log = await until(
        `log of ${id}`,
        async () =>
          pageOf(WebhookDelivery).parse(
            (await two.request('GET', `${base}/${id}/deliveries?limit=100`, { key })).body,
          ).data,
        (rows) => rows.length === EVENTS && rows.every((d) => d.status === 'succeeded'),
      );
      expect(log.every((d) => d.attempts === 1)).toBe(true);
    }
    expect(receiver.received).toHaveLength(total);
    // Each event to each endpoint exactly once.
    const pairs = receiver.received.map((r) => `${r.headers['webhook-id']} ${r.url}`);
    expect(new Set(pairs).size).toBe(total);
    const perEvent = new Map<string, number>();
    for (const r of receiver.received) {
      const id = String(r.headers['webhook-id']);
      perEvent.set(id, (perEvent.get(id) ?? 0) + 1);
    }
    expect(perEvent.size).toBe(EVENTS);
    expect([...perEvent.values()].every((n) => n === endpoints.length)).toBe(true);
  });

  it('works a job any instance queued on pg-boss, and deletes it once done', async () => {
    await Promise.all(dispatchers.map((d) => d.stop()));
    dispatchers = [];
    const { key } = await one.newUser();
    const { org, base, endpoint } = await orgWithEndpoint(one, key, 'Queued', {
      url: `${receiver.url}?queued`,
      eventTypes: ['organization.updated'],
    });
    await one.request('PATCH', `/api/public/organizations/${org.id}`, {
      key,
      body: { name: 'Queued 2' },
    });
    const log = async () =>
      pageOf(WebhookDelivery).parse(
        (await two.request('GET', `${base}/${endpoint.id}/deliveries`, { key })).body,
      ).data[0];
    const pending = await log();
    expect(pending).toMatchObject({ status: 'pending', attempts: 0 });
    // Leased and queued on pg-boss by hand, as another instance's dispatcher does. No
    // dispatcher queues a leased delivery again before its lease ends: only a worker taking
    // the job from pg-boss sends it.
    const now = new Date();
    const lease = new Date(now.getTime() + 60_000).toISOString();
    const db = one.deps.store.db;
    expect(await leaseDeliveries(db, [pending!.id], now.toISOString(), lease)).toEqual([
      pending!.id,
    ]);
    const boss = new PgBoss({ connectionString: pg.url, migrate: false, supervise: false });
    await boss.start();
    try {
      await boss.send(WEBHOOK_QUEUE, { id: pending!.id, lease });
    } finally {
      await boss.stop({ graceful: false });
    }
    dispatchers = [await startJobs(two.deps, { dataSources: false, webhooks: { pollMs: 20 } })];
    const done = await until(
      'sent by the worker of the other instance',
      log,
      (d) => d?.status === 'succeeded',
    );
    expect(done).toMatchObject({ attempts: 1, lastResponseStatus: 204 });
    expect(receiver.received.filter((r) => r.url.endsWith('?queued'))).toHaveLength(1);
    // Its job is deleted, not kept as completed: the delivery log is the record.
    await until(
      'the job deleted',
      async () =>
        (
          await sql<{
            n: number;
          }>`select count(*)::int as n from pgboss.job where name = ${WEBHOOK_QUEUE}`.execute(db)
        ).rows[0]!.n,
      (n) => n === 0,
    );
  });
});
