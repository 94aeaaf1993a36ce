import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';
import { orgWithEndpoint } from '../../../test/support/webhook-endpoint';
import { pruneOutbox } from '../../src/webhooks/store';

// SQLite and PostgreSQL, less what BRIDGEKIT_ENGINES leaves out.
const ON = (['sqlite', 'postgres'] as const).filter((engine) => ENGINES.includes(engine));

describe.each(ON)('webhook log retention on %s', (engine) => {
  let bridge: TestBridge;
  beforeAll(async () => {
    bridge = await startBridge(engine);
  });
  afterAll(() => bridge.stop());

  it('deletes finished events and deliveries past the retention, never one still pending', async () => {
    const { key } = await bridge.newUser();
    const { base, endpoint } = await orgWithEndpoint(bridge, key, 'Old', {
      url: 'https://hooks.example.com/old',
      eventTypes: ['member.added'],
    });
    const done = (await bridge.request('POST', `${base}/${endpoint.id}/test`, { key })).body.data;
    const pending = (await bridge.request('POST', `${base}/${endpoint.id}/test`, { key })).body
      .data;
    const fresh = (await bridge.request('POST', `${base}/${endpoint.id}/test`, { key })).body.data;
    const { db } = bridge.deps.store;
    const old = '2026-01-01T00:00:00.000Z';
    await db
      .updateTable('webhookDeliveries')
      .set({ status: 'succeeded' })
      .where('id', 'in', [done.id, fresh.id])
      .execute();
    await db
      .updateTable('webhookEvents')
      .set({ createdAt: old })
      .where('id', 'in', [done.eventId, pending.eventId])
      .execute();

    expect(await pruneOutbox(db, '2026-02-01T00:00:00.000Z')).toBe(1);
    const log = (await bridge.request('GET', `${base}/${endpoint.id}/deliveries`, { key })).body
      .data as { id: string }[];
    expect(log.map((d) => d.id).sort()).toEqual([pending.id, fresh.id].sort());
    const events = await db.selectFrom('webhookEvents').select('id').execute();
    expect(events.map((e) => e.id).sort()).toEqual([pending.eventId, fresh.eventId].sort());
  });
});
