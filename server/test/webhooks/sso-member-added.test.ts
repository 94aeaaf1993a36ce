// `member.added` from an SSO first sign-in: recorded with the membership the exchange creates
// (in its transaction), on every engine, and only when the exchange created one.
import { randomBytes } from 'node:crypto';
import type { WebhookEndpoint } from '@bridgekit/contract';
import { createSsoToken, verifyWebhook } from '@bridgekit/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';
import { type RedisServer, startRedisServer } from '../../../test/support/redis-server';
import { until } from '../../../test/support/wait';
import type { Lifecycle } from '../../src/lifecycle/lifecycle';
import { startJobs } from '../../src/lifecycle/start';
import { type Receiver, startReceiver } from './receiver';

const FAST = { pollMs: 50, scheduleMs: [0, 200, 200] };

describe.each(
  (
    [
      ['SQLite', 'sqlite', false],
      ['PostgreSQL', 'postgres', false],
      ['PostgreSQL + Redis', 'postgres', true],
    ] as const
  ).filter(([, engine]) => ENGINES.includes(engine)),
)('member.added from an SSO first sign-in on %s', (_label, engine, withRedis) => {
  let redis: RedisServer | undefined;
  let bridge: TestBridge;
  let dispatcher: Lifecycle;
  let receiver: Receiver;
  let admin: { key: string };
  let org: { id: string; jwtSecret: string };
  let endpoint: WebhookEndpoint & { secret: string };

  beforeAll(async () => {
    redis = withRedis ? await startRedisServer() : undefined;
    bridge = await startBridge(engine, redis ? { REDIS_URL: redis.url } : {});
    dispatcher = await startJobs(bridge.deps, { dataSources: false, webhooks: FAST });
    admin = await bridge.newUser();
    const created = await bridge.request('POST', '/api/public/organizations?include=jwtSecret', {
      key: admin.key,
      body: { name: 'SSO hooks' },
    });
    org = created.body.data;
    receiver = await startReceiver();
    const added = await bridge.request(
      'POST',
      `/api/public/organizations/${org.id}/webhook-endpoints`,
      { key: admin.key, body: { url: receiver.url, eventTypes: ['member.added'] } },
    );
    expect(added.status).toBe(201);
    endpoint = added.body.data;
  });
  afterAll(async () => {
    await dispatcher?.stop();
    await receiver?.close();
    await bridge?.stop();
    await redis?.stop();
  });

  const signIn = async (email: string) => {
    const jwt = await createSsoToken({
      secret: org.jwtSecret,
      orgId: org.id,
      user: { email, role: 'ADMIN' },
    });
    const res = await bridge.request('POST', '/api/sso/jwt', { body: { jwt } });
    expect(res.status).toBe(200);
    return res.body.data.member as { id: string; userId: string };
  };
  const received = () => receiver.received.map((r) => JSON.parse(r.body) as { type: string });

  it('delivers exactly one member.added for a new email, and none when it signs in again', async () => {
    const email = `new-${randomBytes(4).toString('hex')}@example.com`;
    // Concurrent first sign-ins of one new email: one membership, one event.
    const members = await Promise.all([signIn(email), signIn(email), signIn(email)]);
    expect(new Set(members.map((m) => m.id)).size).toBe(1);
    await signIn(email);

    // Recorded once, in the outbox, for this organization.
    const recorded = await bridge.deps.store.db
      .selectFrom('webhookEvents')
      .select('type')
      .where('organizationId', '=', org.id)
      .execute();
    expect(recorded).toEqual([{ type: 'member.added' }]);
    // And delivered.
    await until(
      'member.added',
      async () => receiver.received.length,
      (n) => n >= 1,
    );
    expect(received().map((e) => e.type)).toEqual(['member.added']);
    const hook = receiver.received[0]!;
    const event = await verifyWebhook(
      { headers: hook.headers as never, body: hook.body },
      endpoint.secret,
    );
    expect(event.data).toEqual({
      organizationId: org.id,
      memberId: members[0]!.id,
      userId: members[0]!.userId,
      email,
      role: 'ADMIN',
    });
  });
});
