import { pageOf, WebhookDelivery } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestBridge } from '../../../test/support/bridge';
import { until } from '../../../test/support/wait';
import type { Lifecycle } from '../../src/lifecycle/lifecycle';
import { startJobs } from '../../src/lifecycle/start';
import { createSharedPg, type SharedPg, startBridgeOn } from '../sso-http/support';
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
});
