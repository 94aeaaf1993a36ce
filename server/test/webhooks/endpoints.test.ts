import {
  ErrorBody,
  pageOf,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from '@bridgekit/contract';
import { createSsoToken } from '@bridgekit/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';
import { recordTestEvent } from '../../src/webhooks/events';

// SQLite and PostgreSQL, less what BRIDGEKIT_ENGINES leaves out.
const ON = (['sqlite', 'postgres'] as const).filter((engine) => ENGINES.includes(engine));

const EVENTS = ['member.added', 'data_source.health_changed'];
const UNKNOWN = 'whe_00000000000000000000000000';

describe.each(ON)('webhook endpoints on %s', (engine) => {
  let bridge: TestBridge;
  let admin: { key: string; email: string };
  let member: { key: string; email: string };
  let orgId: string;
  const base = () => `/api/public/organizations/${orgId}/webhook-endpoints`;
  const create = (body: unknown, key = admin.key) => bridge.request('POST', base(), { key, body });

  function expectError(
    res: { status: number; body: unknown },
    status: number,
    title: string,
    code: string,
  ) {
    expect(res.status).toBe(status);
    const { error } = ErrorBody.parse(res.body);
    expect(error).toMatchObject({ title, code });
    return error;
  }

  beforeAll(async () => {
    bridge = await startBridge(engine);
    admin = await bridge.newUser();
    member = await bridge.newUser();
    const org = await bridge.request('POST', '/api/public/organizations', {
      key: admin.key,
      body: { name: 'Hooks Org' },
    });
    orgId = org.body.data.id;
    await bridge.request('POST', `/api/public/organizations/${orgId}/members`, {
      key: admin.key,
      body: { email: member.email, role: 'MEMBER' },
    });
  });
  afterAll(() => bridge.stop());

  it('creates an endpoint and shows its whsec_ secret once; get and list never show it', async () => {
    const res = await create({ url: 'https://hooks.example.com/bridge', eventTypes: EVENTS });
    expect(res.status).toBe(201);
    const created = WebhookEndpointWithSecret.parse(res.body.data);
    expect(created).toMatchObject({
      organizationId: orgId,
      url: 'https://hooks.example.com/bridge',
      description: null,
      eventTypes: EVENTS,
      enabled: true,
      disabledReason: null,
      previousSecretExpiresAt: null,
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const got = await bridge.request('GET', `${base()}/${created.id}`, { key: admin.key });
    expect(got.status).toBe(200);
    expect(got.body.data).not.toHaveProperty('secret');
    expect(WebhookEndpoint.parse(got.body.data)).toEqual(
      WebhookEndpoint.parse({ ...created, secret: undefined }),
    );
    const list = await bridge.request('GET', base(), { key: admin.key });
    expect(
      pageOf(WebhookEndpoint)
        .parse(list.body)
        .data.map((e) => e.id),
    ).toContain(created.id);
    expect(list.text).not.toContain(created.secret);
    expect(got.text).not.toContain(created.secret);
  });

  it('stores the secret sealed, never in clear', async () => {
    const res = await create({ url: 'https://hooks.example.com/sealed', eventTypes: EVENTS });
    const secret = res.body.data.secret as string;
    const row = await bridge.deps.store.db
      .selectFrom('webhookEndpoints')
      .selectAll()
      .where('id', '=', res.body.data.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(secret.slice(6));
    expect(row.secretSealed).toMatch(/^v1\./);
  });

  it('updates url, event types and description; omitted fields stay', async () => {
    const { id } = (await create({ url: 'https://a.example.com/x', eventTypes: EVENTS })).body.data;
    const res = await bridge.request('PATCH', `${base()}/${id}`, {
      key: admin.key,
      body: { eventTypes: ['member.removed'], description: 'Ops' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      url: 'https://a.example.com/x',
      eventTypes: ['member.removed'],
      description: 'Ops',
      enabled: true,
    });
    const off = await bridge.request('PATCH', `${base()}/${id}`, {
      key: admin.key,
      body: { enabled: false },
    });
    expect(off.body.data).toMatchObject({
      enabled: false,
      disabledReason: 'Disabled by an ADMIN',
    });
    const on = await bridge.request('PATCH', `${base()}/${id}`, {
      key: admin.key,
      body: { enabled: true, description: null },
    });
    expect(on.body.data).toMatchObject({
      enabled: true,
      disabledReason: null,
      disabledAt: null,
      description: null,
    });
  });

  it('rotates the secret: a new one shown once, the old one signing for 24 hours', async () => {
    const created = (await create({ url: 'https://r.example.com/x', eventTypes: EVENTS })).body
      .data;
    const before = Date.now();
    const res = await bridge.request('POST', `${base()}/${created.id}/secret`, {
      key: admin.key,
    });
    expect(res.status).toBe(200);
    const rotated = WebhookEndpointWithSecret.parse(res.body.data);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    const until = Date.parse(rotated.previousSecretExpiresAt as string);
    expect(until).toBeGreaterThanOrEqual(before + 24 * 3600_000 - 1000);
    expect(until).toBeLessThanOrEqual(Date.now() + 24 * 3600_000);
  });

  it('deletes an endpoint and returns it; then it is not found', async () => {
    const { id } = (await create({ url: 'https://d.example.com/x', eventTypes: EVENTS })).body.data;
    const res = await bridge.request('DELETE', `${base()}/${id}`, { key: admin.key });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(id);
    expect(res.body.data).not.toHaveProperty('secret');
    const again = await bridge.request('GET', `${base()}/${id}`, { key: admin.key });
    expectError(again, 404, 'NotFound', 'webhook_endpoint_not_found');
  });

  it('records a test event for the endpoint: 202 with its pending delivery in the log', async () => {
    const { id } = (await create({ url: 'https://t.example.com/x', eventTypes: EVENTS })).body.data;
    const res = await bridge.request('POST', `${base()}/${id}/test`, { key: admin.key });
    expect(res.status).toBe(202);
    const delivery = WebhookDelivery.parse(res.body.data);
    expect(delivery).toMatchObject({
      endpointId: id,
      eventType: 'webhook.test',
      status: 'pending',
      attempts: 0,
      lastAttemptAt: null,
      lastResponseStatus: null,
    });
    const log = await bridge.request('GET', `${base()}/${id}/deliveries`, { key: admin.key });
    expect(log.status).toBe(200);
    expect(pageOf(WebhookDelivery).parse(log.body).data).toEqual([delivery]);
  });

  it('writes a test event and its delivery together: a delivery that cannot be written leaves no event', async () => {
    const { db } = bridge.deps.store;
    const events = () =>
      db
        .selectFrom('webhookEvents')
        .select('id')
        .where('organizationId', '=', orgId)
        .where('type', '=', 'webhook.test')
        .execute();
    const before = await events();
    // An endpoint id no row has: the delivery's foreign key refuses it after the event is in.
    await expect(recordTestEvent(db, orgId, UNKNOWN, new Date())).rejects.toThrow(/foreign key/i);
    expect(await events()).toEqual(before);
  });

  it.each([
    [{ eventTypes: EVENTS }, 'url', 'required'],
    [{ url: 'ftp://x.example.com', eventTypes: EVENTS }, 'url', 'invalid_format'],
    [{ url: 'not a url', eventTypes: EVENTS }, 'url', 'invalid_format'],
    [{ url: `https://x.example.com/${'a'.repeat(2000)}`, eventTypes: EVENTS }, 'url', 'too_long'],
    [{ url: 'https://x.example.com' }, 'eventTypes', 'required'],
    [{ url: 'https://x.example.com', eventTypes: [] }, 'eventTypes', 'required'],
    [
      { url: 'https://x.example.com', eventTypes: ['member.eaten'] },
      'eventTypes.0',
      'invalid_value',
    ],
    [
      { url: 'https://x.example.com', eventTypes: ['member.added', 'member.added'] },
      'eventTypes',
      'invalid_value',
    ],
    [
      { url: 'https://x.example.com', eventTypes: EVENTS, secret: 'whsec_x' },
      'secret',
      'unknown_field',
    ],
  ])('refuses %j: 400 naming %s (%s)', async (body, field, fieldCode) => {
    const res = await create(body);
    const error = expectError(res, 400, 'ValidationError', 'validation_failed');
    expect(error.fieldErrors).toHaveProperty([field]);
    expect(error.fieldCodes?.[field]).toBe(fieldCode);
  });

  it('refuses a MEMBER (403 admin_required), a session token (403 api_key_required), an unknown endpoint and another org', async () => {
    const asMember = await bridge.request('GET', base(), { key: member.key });
    expectError(asMember, 403, 'Forbidden', 'admin_required');
    const createAsMember = await create(
      { url: 'https://m.example.com', eventTypes: EVENTS },
      member.key,
    );
    expectError(createAsMember, 403, 'Forbidden', 'admin_required');

    const org = await bridge.request(
      'GET',
      `/api/public/organizations/${orgId}?include=jwtSecret`,
      {
        key: admin.key,
      },
    );
    const jwt = await createSsoToken({
      secret: org.body.data.jwtSecret,
      orgId,
      user: { email: admin.email },
    });
    const session = await bridge.request('POST', '/api/sso/jwt', { body: { jwt } });
    const asSession = await bridge.request('GET', base(), {
      key: session.body.data.sessionToken,
    });
    expectError(asSession, 403, 'Forbidden', 'api_key_required');

    for (const [method, suffix] of [
      ['GET', ''],
      ['PATCH', ''],
      ['DELETE', ''],
      ['POST', '/secret'],
      ['POST', '/test'],
      ['GET', '/deliveries'],
    ] as const) {
      const res = await bridge.request(method, `${base()}/${UNKNOWN}${suffix}`, {
        key: admin.key,
        ...(method === 'PATCH' ? { body: { description: 'x' } } : {}),
      });
      expectError(res, 404, 'NotFound', 'webhook_endpoint_not_found');
    }

    const stranger = await bridge.newUser();
    const theirs = await bridge.request('GET', base(), { key: stranger.key });
    expectError(theirs, 404, 'NotFound', 'organization_not_found');
  });
});
