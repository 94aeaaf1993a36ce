import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pageOf, WebhookDelivery } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type TestBridge } from '../../../test/support/bridge';
import { until } from '../../../test/support/wait';
import type { Lifecycle } from '../../src/lifecycle/lifecycle';
import { startJobs } from '../../src/lifecycle/start';

/** A receiver on loopback that answers each request with `handle`; counts what it got. */
async function rogue(handle: http.RequestListener) {
  let hits = 0;
  const server = http.createServer((req, res) => {
    hits++;
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    hits: () => hits,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

// Each attempt is bounded: 500 ms in all and 1 KiB of answer read here (15 s and 64 KiB by
// default), and a redirect is an answer, not a place to go.
describe('webhook attempts are bounded', () => {
  let bridge: TestBridge;
  let dispatcher: Lifecycle;
  let key: string;
  let orgId: string;

  beforeAll(async () => {
    bridge = await startBridge('sqlite');
    dispatcher = await startJobs(bridge.deps, {
      dataSources: false,
      webhooks: {
        pollMs: 50,
        scheduleMs: [0, 60_000],
        limits: { timeoutMs: 500, maxResponseBytes: 1024 },
      },
    });
    key = (await bridge.newUser()).key;
    orgId = (
      await bridge.request('POST', '/api/public/organizations', { key, body: { name: 'Bounds' } })
    ).body.data.id;
  });
  afterAll(async () => {
    await dispatcher?.stop();
    await bridge?.stop();
  });

  async function firstAttempt(url: string) {
    const base = `/api/public/organizations/${orgId}/webhook-endpoints`;
    const created = await bridge.request('POST', base, {
      key,
      body: { url, eventTypes: ['organization.updated'] },
    });
    await bridge.request('POST', `${base}/${created.body.data.id}/test`, { key });
    const [delivery] = await until(
      'an attempt',
      async () =>
        pageOf(WebhookDelivery).parse(
          (await bridge.request('GET', `${base}/${created.body.data.id}/deliveries`, { key })).body,
        ).data,
      (log) => (log[0]?.attempts ?? 0) >= 1,
    );
    return delivery!;
  }

  it('gives up on a receiver that never answers: a timeout, retried later', async () => {
    const silent = await rogue(() => {});
    try {
      const delivery = await firstAttempt(silent.url);
      expect(delivery).toMatchObject({ status: 'pending', attempts: 1, lastResponseStatus: null });
      expect(delivery.lastError).toBe('timeout: the receiver did not answer in time');
      expect(silent.hits()).toBe(1);
    } finally {
      await silent.close();
    }
  });

  it('stops reading an endless answer and records its status', async () => {
    const endless = await rogue((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = 'x'.repeat(16 * 1024);
      const pump = () => {
        while (res.write(chunk)) {}
        res.once('drain', pump);
      };
      pump();
    });
    try {
      const delivery = await firstAttempt(endless.url);
      expect(delivery).toMatchObject({ status: 'succeeded', lastResponseStatus: 200 });
    } finally {
      await endless.close();
    }
  });

  it('does not follow a redirect: the 302 is the answer, and a failed attempt', async () => {
    const target = await rogue((_req, res) => res.writeHead(204).end());
    const redirecting = await rogue((_req, res) =>
      res.writeHead(302, { location: target.url }).end(),
    );
    try {
      const delivery = await firstAttempt(redirecting.url);
      expect(delivery).toMatchObject({
        status: 'pending',
        lastResponseStatus: 302,
        lastError: 'HTTP 302',
      });
      expect(target.hits()).toBe(0);
    } finally {
      await redirecting.close();
      await target.close();
    }
  });
});
