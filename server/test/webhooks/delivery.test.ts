import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  pageOf,
  WebhookDelivery,
  type WebhookEndpoint,
  WebhookEventType,
} from '@bridgekit/contract';
import { createSsoToken, verifyWebhook } from '@bridgekit/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createPgDatabase,
  ENGINES,
  serveBridge,
  startBridge,
  type TestBridge,
} from '../../../test/support/bridge';
import { until } from '../../../test/support/wait';
import { orgWithEndpoint } from '../../../test/support/webhook-endpoint';
import type { Lifecycle } from '../../src/lifecycle/lifecycle';
import { startJobs } from '../../src/lifecycle/start';
import { webhookWorker } from '../../src/webhooks/dispatcher';
import { leaseDeliveries } from '../../src/webhooks/store';
import { type Received, type Receiver, startReceiver } from './receiver';

// SQLite and PostgreSQL, less what BRIDGEKIT_ENGINES leaves out.
const ON = (['sqlite', 'postgres'] as const).filter((engine) => ENGINES.includes(engine));

const FAST = { pollMs: 50, scheduleMs: [0, 200, 200] };
const ALL = WebhookEventType.options;

describe.each(ON)('webhook delivery on %s', (engine) => {
  let bridge: TestBridge;
  let dispatcher: Lifecycle;
  let receiver: Receiver;
  let admin: { key: string; email: string };
  let orgId: string;
  const orgPath = () => `/api/public/organizations/${orgId}`;

  async function addEndpoint(url: string, eventTypes: readonly string[] = ALL, org = orgId) {
    const res = await bridge.request('POST', `/api/public/organizations/${org}/webhook-endpoints`, {
      key: admin.key,
      body: { url, eventTypes },
    });
    expect(res.status).toBe(201);
    return res.body.data as WebhookEndpoint & { secret: string };
  }
  const deliveries = async (endpointId: string, org = orgId) =>
    pageOf(WebhookDelivery).parse(
      (
        await bridge.request(
          'GET',
          `/api/public/organizations/${org}/webhook-endpoints/${endpointId}/deliveries`,
          { key: admin.key },
        )
      ).body,
    ).data;
  const events = (r: Receiver) => r.received.map((x) => JSON.parse(x.body) as { type: string });
  const receivedOf = (r: Receiver, type: string) =>
    until(
      type,
      async () => r.received.find((x) => JSON.parse(x.body).type === type),
      Boolean,
    ) as Promise<Received>;

  beforeAll(async () => {
    bridge = await startBridge(engine);
    dispatcher = await startJobs(bridge.deps, { dataSources: false, webhooks: FAST });
    admin = await bridge.newUser();
    orgId = (
      await bridge.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: { name: 'Deliveries' },
      })
    ).body.data.id;
  });
  afterAll(async () => {
    await dispatcher?.stop();
    await bridge?.stop();
  });
  afterEach(async () => {
    await receiver?.close();
  });

  it('delivers member and organization events from their real causes, signed so verifyWebhook accepts them', async () => {
    receiver = await startReceiver();
    const endpoint = await addEndpoint(receiver.url);
    const added = await bridge.request('POST', `${orgPath()}/members`, {
      key: admin.key,
      body: { email: `hooked-${engine}@example.com`, role: 'MEMBER' },
    });
    const memberId = added.body.data.id as string;
    await bridge.request('PATCH', `${orgPath()}/members/${memberId}`, {
      key: admin.key,
      body: { role: 'ADMIN' },
    });
    await bridge.request('DELETE', `${orgPath()}/members/${memberId}`, { key: admin.key });
    await bridge.request('PATCH', orgPath(), { key: admin.key, body: { name: 'Renamed' } });
    const rotated = await bridge.request('POST', `${orgPath()}/jwt-secret`, { key: admin.key });

    const wanted = [
      'member.added',
      'member.role_changed',
      'member.removed',
      'organization.updated',
      'organization.jwt_secret_rotated',
    ];
    await until(
      'five events',
      async () => events(receiver).length,
      (n) => n >= wanted.length,
    );
    // Two attempts per endpoint may be in flight: arrival order is not creation order, ids are.
    const inOrder = [...receiver.received].sort((x, y) =>
      String(x.headers['webhook-id']).localeCompare(String(y.headers['webhook-id'])),
    );
    expect(inOrder.map((r) => JSON.parse(r.body).type)).toEqual(wanted);
    const verified = await Promise.all(
      inOrder.map((r) =>
        verifyWebhook({ headers: r.headers as never, body: r.body }, endpoint.secret),
      ),
    );
    const member = {
      organizationId: orgId,
      memberId,
      userId: added.body.data.userId,
      email: `hooked-${engine}@example.com`,
    };
    expect(verified.map((e) => e.data)).toEqual([
      { ...member, role: 'MEMBER' },
      { ...member, role: 'ADMIN', previousRole: 'MEMBER' },
      { ...member, role: 'ADMIN' },
      { organizationId: orgId, name: 'Renamed', slug: expect.any(String), changed: ['name'] },
      {
        organizationId: orgId,
        previousJwtSecretExpiresAt: rotated.body.data.previousJwtSecretExpiresAt,
      },
    ]);
    for (const e of verified) expect(Date.parse(e.timestamp)).not.toBeNaN();
    // The secret is never sent.
    expect(receiver.received.map((r) => r.body).join()).not.toContain(rotated.body.data.jwtSecret);
    // The receiver counts a request when it arrives; the bridge records the attempt once the
    // answer is back, a moment later.
    const log = await until(
      'five attempts recorded',
      () => deliveries(endpoint.id),
      (rows) => rows.every((d) => d.status !== 'pending'),
    );
    expect(log.map((d) => [d.eventType, d.status, d.attempts, d.lastResponseStatus])).toEqual(
      [...wanted].reverse().map((t) => [t, 'succeeded', 1, 204]),
    );
    expect(inOrder.map((r) => r.headers['webhook-id'])).toEqual(
      [...log].reverse().map((d) => d.eventId),
    );
    await bridge.request('DELETE', `${orgPath()}/webhook-endpoints/${endpoint.id}`, {
      key: admin.key,
    });
  });

  it('delivers member.added when an SSO sign-in makes a known user a member, once', async () => {
    receiver = await startReceiver();
    const endpoint = await addEndpoint(receiver.url, ['member.added']);
    const org = await bridge.request('GET', `${orgPath()}?include=jwtSecret`, { key: admin.key });
    // A user the bridge knows (an API key's), not yet in this organization.
    const { email } = await bridge.newUser(`sso-known-${engine}@example.com`);
    for (let i = 0; i < 2; i++) {
      const jwt = await createSsoToken({
        secret: org.body.data.jwtSecret,
        orgId,
        user: { email, role: 'MEMBER' },
      });
      const session = await bridge.request('POST', '/api/sso/jwt', { body: { jwt } });
      expect(session.status).toBe(200);
    }
    const got = await receivedOf(receiver, 'member.added');
    const event = await verifyWebhook(
      { headers: got.headers as never, body: got.body },
      endpoint.secret,
    );
    expect(event.data).toMatchObject({ organizationId: orgId, email, role: 'MEMBER' });
    // A test event after the second sign-in: once it arrives, nothing else was recorded.
    await bridge.request('POST', `${orgPath()}/webhook-endpoints/${endpoint.id}/test`, {
      key: admin.key,
    });
    await receivedOf(receiver, 'webhook.test');
    expect(events(receiver).map((e) => e.type)).toEqual(['member.added', 'webhook.test']);
    await bridge.request('DELETE', `${orgPath()}/webhook-endpoints/${endpoint.id}`, {
      key: admin.key,
    });
  });

  it('records nothing for a change that is refused (the last ADMIN stays)', async () => {
    receiver = await startReceiver();
    const endpoint = await addEndpoint(receiver.url, ['member.removed', 'member.role_changed']);
    const [me] = (await bridge.request('GET', `${orgPath()}/members`, { key: admin.key })).body
      .data as { id: string }[];
    const refused = await bridge.request('DELETE', `${orgPath()}/members/${me!.id}`, {
      key: admin.key,
    });
    expect(refused.status).toBe(409);
    const demoted = await bridge.request('PATCH', `${orgPath()}/members/${me!.id}`, {
      key: admin.key,
      body: { role: 'MEMBER' },
    });
    expect(demoted.status).toBe(409);
    // A test event after them: once it arrives, anything recorded before it was sent too.
    await bridge.request('POST', `${orgPath()}/webhook-endpoints/${endpoint.id}/test`, {
      key: admin.key,
    });
    await receivedOf(receiver, 'webhook.test');
    expect(events(receiver).map((e) => e.type)).toEqual(['webhook.test']);
    expect((await deliveries(endpoint.id)).map((d) => d.eventType)).toEqual(['webhook.test']);
    await bridge.request('DELETE', `${orgPath()}/webhook-endpoints/${endpoint.id}`, {
      key: admin.key,
    });
  });

  it('sends only the event types an endpoint subscribes to, and signs with both secrets during a rotation', async () => {
    receiver = await startReceiver();
    const endpoint = await addEndpoint(receiver.url, ['organization.updated']);
    const rotated = await bridge.request(
      'POST',
      `${orgPath()}/webhook-endpoints/${endpoint.id}/secret`,
      { key: admin.key },
    );
    await bridge.request('POST', `${orgPath()}/members`, {
      key: admin.key,
      body: { email: `unsubscribed-${engine}@example.com`, role: 'MEMBER' },
    });
    await bridge.request('PATCH', orgPath(), { key: admin.key, body: { name: 'Again' } });
    const got = await receivedOf(receiver, 'organization.updated');
    expect(events(receiver).map((e) => e.type)).toEqual(['organization.updated']);
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [endpoint.secret, rotated.body.data.secret]) {
      await expect(
        verifyWebhook({ headers: got.headers as never, body: got.body }, secret),
      ).resolves.toMatchObject({
        type: 'organization.updated',
      });
    }
    await bridge.request('DELETE', `${orgPath()}/webhook-endpoints/${endpoint.id}`, {
      key: admin.key,
    });
  });

  it('redelivers after the receiver fails, with the same webhook-id, until it answers 2xx', async () => {
    receiver = await startReceiver();
    receiver.answer.status = 500;
    const endpoint = await addEndpoint(receiver.url, ['organization.updated']);
    await bridge.request('PATCH', orgPath(), { key: admin.key, body: { name: 'Failing' } });
    const failing = await until(
      'a failed attempt',
      async () => (await deliveries(endpoint.id))[0],
      (d) => d !== undefined && d.attempts >= 1,
    );
    expect(failing).toMatchObject({ status: 'pending', lastResponseStatus: 500 });
    expect(failing!.lastError).toBe('HTTP 500');
    expect(failing!.nextAttemptAt).not.toBeNull();
    receiver.answer.status = 200;
    const done = await until(
      'succeeded',
      async () => (await deliveries(endpoint.id))[0],
      (d) => d?.status === 'succeeded',
    );
    expect(done).toMatchObject({ lastResponseStatus: 200, lastError: null, nextAttemptAt: null });
    expect(done!.attempts).toBeGreaterThanOrEqual(2);
    expect(receiver.received).toHaveLength(done!.attempts);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(
      new Set([done!.eventId]),
    );
    await bridge.request('DELETE', `${orgPath()}/webhook-endpoints/${endpoint.id}`, {
      key: admin.key,
    });
  });

  it('disables an endpoint whose delivery used its last attempt, with the reason; turned back on, it gets the rest', async () => {
    receiver = await startReceiver();
    receiver.answer.status = 503;
    const endpoint = await addEndpoint(receiver.url, ['organization.updated']);
    await bridge.request('PATCH', orgPath(), { key: admin.key, body: { name: 'Down' } });
    const failed = await until(
      'failed',
      async () => (await deliveries(endpoint.id))[0],
      (d) => d?.status === 'failed',
    );
    expect(failed).toMatchObject({ attempts: 3, lastResponseStatus: 503, nextAttemptAt: null });
    const off = await bridge.request('GET', `${orgPath()}/webhook-endpoints/${endpoint.id}`, {
      key: admin.key,
    });
    expect(off.body.data.enabled).toBe(false);
    expect(off.body.data.disabledReason).toContain('failed 3 attempts (the last: HTTP 503)');
    expect(receiver.received).toHaveLength(3);
    // Disabled: subscribed events are not even recorded for it.
    await bridge.request('PATCH', orgPath(), { key: admin.key, body: { name: 'Still down' } });
    expect(await deliveries(endpoint.id)).toHaveLength(1);

    receiver.answer.status = 204;
    await bridge.request('PATCH', `${orgPath()}/webhook-endpoints/${endpoint.id}`, {
      key: admin.key,
      body: { enabled: true },
    });
    await bridge.request('PATCH', orgPath(), { key: admin.key, body: { name: 'Up' } });
    const back = await until(
      'delivered after re-enabling',
      async () => (await deliveries(endpoint.id))[0],
      (d) => d?.status === 'succeeded',
    );
    expect(back?.attempts).toBe(1);
    await bridge.request('DELETE', `${orgPath()}/webhook-endpoints/${endpoint.id}`, {
      key: admin.key,
    });
  });

  it('keeps a slow receiver from delaying another endpoint', async () => {
    receiver = await startReceiver();
    const slow = await startReceiver('/slow');
    try {
      slow.answer.delayMs = 8_000;
      const slowEndpoint = await addEndpoint(slow.url, ['organization.updated']);
      const fast = await addEndpoint(receiver.url, ['organization.updated']);
      for (let i = 0; i < 6; i++) {
        await bridge.request('PATCH', orgPath(), { key: admin.key, body: { name: `Busy ${i}` } });
      }
      await until(
        'six to the fast receiver',
        async () => receiver.received.length,
        (n) => n >= 6,
      );
      // Meanwhile the slow one holds at most its two attempts in flight, none answered yet.
      expect(slow.received.length).toBeLessThanOrEqual(2);
      const slowLog = await deliveries(slowEndpoint.id);
      expect(slowLog.filter((d) => d.status === 'succeeded')).toHaveLength(0);
      // Each recorded once its answer is back, a moment after the receiver counted it.
      await until(
        'six fast attempts recorded',
        () => deliveries(fast.id),
        (rows) => rows.length === 6 && rows.every((d) => d.status === 'succeeded'),
      );
      for (const e of [slowEndpoint, fast]) {
        await bridge.request('DELETE', `${orgPath()}/webhook-endpoints/${e.id}`, {
          key: admin.key,
        });
      }
    } finally {
      await slow.close();
    }
  });

  it('delivers organization.deleted after the organization is gone', async () => {
    receiver = await startReceiver();
    const doomed = (
      await bridge.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: { name: 'Doomed' },
      })
    ).body.data;
    const endpoint = await addEndpoint(receiver.url, ['organization.deleted'], doomed.id);
    const deleted = await bridge.request('DELETE', `/api/public/organizations/${doomed.id}`, {
      key: admin.key,
    });
    expect(deleted.status).toBe(200);
    const got = await receivedOf(receiver, 'organization.deleted');
    const event = await verifyWebhook(
      { headers: got.headers as never, body: got.body },
      endpoint.secret,
    );
    expect(event.data).toEqual({ organizationId: doomed.id, name: 'Doomed', slug: doomed.slug });
  });
});

describe.each(ON)('webhook delivery across a restart on %s', (engine) => {
  it('loses nothing when the bridge restarts mid-retry: the next instance sends it, same id', async () => {
    const receiver = await startReceiver();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-hooks-'));
    const database = engine === 'postgres' ? await createPgDatabase() : undefined;
    const env = {
      BRIDGE_DATA_DIR: dataDir,
      DATABASE_URL: database?.url,
      BRIDGE_SECRET_KEY: randomBytes(32).toString('base64'),
      BRIDGE_SESSION_SECRET: randomBytes(32).toString('base64url'),
    };
    try {
      receiver.answer.status = 502;
      const first = await serveBridge(env);
      const dispatcher = await startJobs(first.deps, {
        dataSources: false,
        webhooks: { pollMs: 50, scheduleMs: [0, 1_500, 200] },
      });
      const { createApiKeyForEmail } = await import('../../src/domain/api-key-admin');
      const { key } = await createApiKeyForEmail(
        first.deps.store.db,
        { email: 'r@example.com' },
        new Date(),
      );
      const {
        org,
        base: hooks,
        endpoint,
      } = await orgWithEndpoint(first, key, 'R', {
        url: receiver.url,
        eventTypes: ['organization.updated'],
      });
      await first.request('PATCH', `/api/public/organizations/${org.id}`, {
        key,
        body: { name: 'R2' },
      });
      await until(
        'the first attempt',
        async () => receiver.received.length,
        (n) => n === 1,
      );
      await dispatcher.stop();
      await first.close();

      receiver.answer.status = 204;
      const second = await serveBridge(env);
      const again = await startJobs(second.deps, {
        dataSources: false,
        webhooks: { pollMs: 50, scheduleMs: [0, 1_500, 200] },
      });
      try {
        const log = await until(
          'delivered by the restarted bridge',
          async () =>
            (await second.request('GET', `${hooks}/${endpoint.id}/deliveries`, { key })).body
              .data[0],
          (d: WebhookDelivery | undefined) => d?.status === 'succeeded',
        );
        expect(log).toMatchObject({ attempts: 2, lastResponseStatus: 204 });
        expect(receiver.received).toHaveLength(2);
        expect(receiver.received[0]!.headers['webhook-id']).toBe(
          receiver.received[1]!.headers['webhook-id'],
        );
        await verifyWebhook(
          { headers: receiver.received[1]!.headers as never, body: receiver.received[1]!.body },
          endpoint.secret,
        );
      } finally {
        await again.stop();
        await second.close();
      }
    } finally {
      await receiver.close();
      await database?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe.each(ON)('webhook jobs and their leases on %s', (engine) => {
  let bridge: TestBridge;
  let receiver: Receiver;
  let key: string;

  beforeAll(async () => {
    bridge = await startBridge(engine);
    receiver = await startReceiver();
    key = (await bridge.newUser()).key;
  });
  afterAll(async () => {
    await bridge?.stop();
    await receiver?.close();
  });

  /** A new organization with one endpoint and one pending delivery (no jobs run here). */
  async function pendingDelivery(name: string) {
    const org = await bridge.request('POST', '/api/public/organizations', {
      key,
      body: { name },
    });
    const hooks = `/api/public/organizations/${org.body.data.id}/webhook-endpoints`;
    const endpoint = await bridge.request('POST', hooks, {
      key,
      body: { url: receiver.url, eventTypes: ['organization.updated'] },
    });
    await bridge.request('PATCH', `/api/public/organizations/${org.body.data.id}`, {
      key,
      body: { name: `${name} renamed` },
    });
    const path = `${hooks}/${endpoint.body.data.id}`;
    const log = async () =>
      (await bridge.request('GET', `${path}/deliveries`, { key })).body.data[0] as WebhookDelivery;
    const delivery = await log();
    expect(delivery).toMatchObject({ status: 'pending', attempts: 0 });
    return {
      id: delivery.id,
      log,
      remove: () => bridge.request('DELETE', path, { key }),
    };
  }

  it('runs a job only under the lease it was queued with, and a delivery it sent never again', async () => {
    const { db } = bridge.deps.store;
    const fenced = await pendingDelivery('Fenced');
    const { id } = fenced;
    const worker = webhookWorker(bridge.deps);
    const now = new Date();
    const lease = new Date(now.getTime() + 60_000).toISOString();
    // Not leased: a job naming any lease is void.
    await worker.run({ id, lease });
    expect(receiver.received).toHaveLength(0);
    expect(await leaseDeliveries(db, [id], now.toISOString(), lease)).toEqual([id]);
    // Leased: a second lease is refused while the first holds, and a job under another lease
    // (one queued before the delivery was leased again) does nothing.
    const other = new Date(now.getTime() + 90_000).toISOString();
    expect(await leaseDeliveries(db, [id], now.toISOString(), other)).toEqual([]);
    await worker.run({ id, lease: new Date(now.getTime() + 50_000).toISOString() });
    expect(receiver.received).toHaveLength(0);
    await worker.run({ id, lease });
    expect(receiver.received).toHaveLength(1);
    expect(await fenced.log()).toMatchObject({ status: 'succeeded', attempts: 1 });
    // The same job again (a duplicate from the queue): the lease went with the attempt.
    await worker.run({ id, lease });
    expect(receiver.received).toHaveLength(1);
    // A job with too little lease left to finish its attempt inside it is dropped too.
    const late = await pendingDelivery('Late');
    const short = new Date(Date.now() + 1_000).toISOString();
    expect(await leaseDeliveries(db, [late.id], new Date().toISOString(), short)).toEqual([
      late.id,
    ]);
    await worker.run({ id: late.id, lease: short });
    expect(receiver.received).toHaveLength(1);
    expect(await late.log()).toMatchObject({ status: 'pending', attempts: 0 });
    await late.remove();
    await fenced.remove();
    receiver.received.length = 0;
  });

  it('reads the jobs started together in one batch and still judges each under its own lease', async () => {
    const { db } = bridge.deps.store;
    const deliveries = await Promise.all([
      pendingDelivery('Batch A'),
      pendingDelivery('Batch B'),
      pendingDelivery('Batch C'),
    ]);
    const [a, b, c] = deliveries;
    const now = new Date();
    const lease = new Date(now.getTime() + 60_000).toISOString();
    const ids = [a.id, b.id, c.id];
    expect((await leaseDeliveries(db, ids, now.toISOString(), lease)).sort()).toEqual(ids.sort());
    const worker = webhookWorker(bridge.deps);
    // Started in one turn, as a job engine starts a fetched batch: b's job names a lease it
    // does not hold (a stale job), a's and c's the current one.
    const stale = new Date(now.getTime() + 50_000).toISOString();
    await Promise.all([
      worker.run({ id: a.id, lease }),
      worker.run({ id: b.id, lease: stale }),
      worker.run({ id: c.id, lease }),
    ]);
    expect(receiver.received).toHaveLength(2);
    expect(await a.log()).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(await b.log()).toMatchObject({ status: 'pending', attempts: 0 });
    expect(await c.log()).toMatchObject({ status: 'succeeded', attempts: 1 });
    const sentIds = receiver.received.map((r) => r.headers['webhook-id']).sort();
    const eventIds = await db
      .selectFrom('webhookDeliveries')
      .select('eventId')
      .where('id', 'in', [a.id, c.id])
      .execute();
    expect(sentIds).toEqual(eventIds.map((e) => e.eventId).sort());
    for (const d of deliveries) await d.remove();
    receiver.received.length = 0;
  });

  it('queues a delivery again when the job that held it was lost with its instance', async () => {
    const lost = await pendingDelivery('Lost');
    const { id } = lost;
    // An instance leased it, and died before its job ran: nothing is queued for it.
    const leaseEnds = new Date(Date.now() + 1_500);
    const leased = await leaseDeliveries(
      bridge.deps.store.db,
      [id],
      new Date().toISOString(),
      leaseEnds.toISOString(),
    );
    expect(leased).toEqual([id]);
    const jobs = await startJobs(bridge.deps, { dataSources: false, webhooks: { pollMs: 50 } });
    try {
      const done = await until(
        'delivered after the lease ended',
        () => lost.log(),
        (d) => d?.status === 'succeeded',
      );
      expect(done.attempts).toBe(1);
      expect(Date.parse(done.lastAttemptAt as string)).toBeGreaterThanOrEqual(leaseEnds.getTime());
      expect(receiver.received).toHaveLength(1);
    } finally {
      await jobs.stop();
    }
  });
});
