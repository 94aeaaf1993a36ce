import { pageOf, WebhookDelivery } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type TestBridge } from '../../../test/support/bridge';
import { until } from '../../../test/support/wait';
import type { Lifecycle } from '../../src/lifecycle/lifecycle';
import { startJobs } from '../../src/lifecycle/start';
import { type Receiver, startReceiver } from './receiver';

// As in production: no private addresses. Each refused attempt names the policy; the
// receiver on loopback never sees a request.
describe('webhook delivery under the network policy', () => {
  let bridge: TestBridge;
  let dispatcher: Lifecycle;
  let receiver: Receiver;
  let key: string;
  let orgId: string;

  beforeAll(async () => {
    bridge = await startBridge('sqlite', { BRIDGE_ALLOW_PRIVATE_NETWORKS: 'false' });
    dispatcher = await startJobs(bridge.deps, {
      dataSources: false,
      webhooks: { pollMs: 50, scheduleMs: [0, 60_000] },
    });
    receiver = await startReceiver();
    key = (await bridge.newUser()).key;
    orgId = (
      await bridge.request('POST', '/api/public/organizations', { key, body: { name: 'Policy' } })
    ).body.data.id;
  });
  afterAll(async () => {
    await dispatcher?.stop();
    await bridge?.stop();
    await receiver?.close();
  });

  it.each([
    ['loopback', () => receiver.url],
    ['loopback by name', () => receiver.url.replace('127.0.0.1', 'localhost')],
    ['loopback as a legacy IPv4 literal', () => receiver.url.replace('127.0.0.1', '0x7f.1')],
    ['IPv6 loopback', () => 'http://[::1]:9/hook'],
    ['IPv4-mapped IPv6 loopback', () => 'http://[::ffff:127.0.0.1]:9/hook'],
    ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data/'],
    ['a private network', () => 'http://10.0.0.1/hook'],
  ])('refuses %s', async (_name, url) => {
    const base = `/api/public/organizations/${orgId}/webhook-endpoints`;
    const created = await bridge.request('POST', base, {
      key,
      body: { url: url(), eventTypes: ['organization.updated'] },
    });
    expect(created.status).toBe(201);
    const test = await bridge.request('POST', `${base}/${created.body.data.id}/test`, { key });
    expect(test.status).toBe(202);
    const [attempted] = await until(
      'an attempt',
      async () =>
        pageOf(WebhookDelivery).parse(
          (await bridge.request('GET', `${base}/${created.body.data.id}/deliveries`, { key })).body,
        ).data,
      (log) => (log[0]?.attempts ?? 0) >= 1,
    );
    expect(attempted).toMatchObject({ status: 'pending', lastResponseStatus: null });
    expect(attempted!.lastError).toMatch(/^address_not_allowed: /);
    expect(receiver.received).toHaveLength(0);
    await bridge.request('DELETE', `${base}/${created.body.data.id}`, { key });
  });
});
