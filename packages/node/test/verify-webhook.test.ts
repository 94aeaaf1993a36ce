import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { newWebhookSecret, webhookHeaders } from '../../../server/src/webhooks/signing';
import { verifyWebhook, WebhookVerificationError } from '../src';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const T = Math.floor(NOW.getTime() / 1000);
const BODY = JSON.stringify({
  type: 'member.added',
  timestamp: NOW.toISOString(),
  data: { organizationId: 'org_0123456789ab', memberId: 'mem_0123456789ab', role: 'MEMBER' },
});
const ID = 'msg_2mQ8e3Xb9Kp1';

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WebhookVerificationError);
  return (error as WebhookVerificationError).code;
}

describe('webhook signatures (Standard Webhooks)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('makes whsec_ secrets of 32 random bytes, base64', () => {
    const a = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(a);
  });

  it("signs what the spec's reference library verifies", () => {
    const secret = newWebhookSecret();
    const headers = webhookHeaders([secret], ID, T, BODY);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(BODY, headers)).toEqual(JSON.parse(BODY));
  });

  it('signs with both secrets during a rotation: each verifies on its own', () => {
    const [old, current] = [newWebhookSecret(), newWebhookSecret()];
    const headers = webhookHeaders([current, old], ID, T, BODY);
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(new Webhook(old).verify(BODY, headers)).toEqual(JSON.parse(BODY));
    expect(new Webhook(current).verify(BODY, headers)).toEqual(JSON.parse(BODY));
  });

  it('verifies what the reference library signs, from a Fetch Request and from headers+body', async () => {
    const secret = newWebhookSecret();
    const signature = new Webhook(secret).sign(ID, NOW, BODY);
    const headers = {
      'webhook-id': ID,
      'webhook-timestamp': String(T),
      'webhook-signature': signature,
    };
    const raw = await verifyWebhook({ headers, body: Buffer.from(BODY) }, secret);
    expect(raw).toEqual(JSON.parse(BODY));
    const request = new Request('https://host.example/hook', {
      method: 'POST',
      headers,
      body: BODY,
    });
    expect(await verifyWebhook(request, secret)).toEqual(JSON.parse(BODY));
  });

  it('accepts any one of several secrets (a rotation rolling out on the receiver)', async () => {
    const [old, current] = [newWebhookSecret(), newWebhookSecret()];
    const headers = webhookHeaders([current], ID, T, BODY);
    expect(await verifyWebhook({ headers, body: BODY }, [old, current])).toEqual(JSON.parse(BODY));
  });

  it('refuses a tampered body', async () => {
    const secret = newWebhookSecret();
    const headers = webhookHeaders([secret], ID, T, BODY);
    const tampered = BODY.replace('MEMBER', 'ADMIN');
    expect(await refusal(verifyWebhook({ headers, body: tampered }, secret))).toBe(
      'invalid_signature',
    );
    expect(() => new Webhook(secret).verify(tampered, headers)).toThrow('No matching signature');
  });

  it('refuses a changed id, as the id is signed', async () => {
    const secret = newWebhookSecret();
    const headers = { ...webhookHeaders([secret], ID, T, BODY), 'webhook-id': 'msg_other' };
    expect(await refusal(verifyWebhook({ headers, body: BODY }, secret))).toBe('invalid_signature');
  });

  it('refuses the wrong secret', async () => {
    const headers = webhookHeaders([newWebhookSecret()], ID, T, BODY);
    expect(await refusal(verifyWebhook({ headers, body: BODY }, newWebhookSecret()))).toBe(
      'invalid_signature',
    );
  });

  it('refuses a timestamp more than five minutes old or ahead, even correctly signed', async () => {
    const secret = newWebhookSecret();
    for (const t of [T - 301, T + 301]) {
      const headers = webhookHeaders([secret], ID, t, BODY);
      expect(await refusal(verifyWebhook({ headers, body: BODY }, secret))).toBe(
        'timestamp_out_of_range',
      );
    }
    const edge = webhookHeaders([secret], ID, T - 300, BODY);
    expect(await verifyWebhook({ headers: edge, body: BODY }, secret)).toEqual(JSON.parse(BODY));
  });

  it('refuses missing headers, a non-numeric timestamp and a secret without whsec_', async () => {
    const secret = newWebhookSecret();
    const headers = webhookHeaders([secret], ID, T, BODY);
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const partial = { ...headers, [name]: undefined };
      expect(await refusal(verifyWebhook({ headers: partial, body: BODY }, secret))).toBe(
        'missing_headers',
      );
    }
    const bad = { ...headers, 'webhook-timestamp': '1e9' };
    expect(await refusal(verifyWebhook({ headers: bad, body: BODY }, secret))).toBe(
      'invalid_timestamp',
    );
    expect(await refusal(verifyWebhook({ headers, body: BODY }, secret.slice(6)))).toBe(
      'invalid_secret',
    );
  });

  it('ignores signatures of other versions', async () => {
    const secret = newWebhookSecret();
    const v1 = webhookHeaders([secret], ID, T, BODY)['webhook-signature']!;
    const headers = {
      ...webhookHeaders([secret], ID, T, BODY),
      'webhook-signature': `v2,${v1.slice(3)}`,
    };
    expect(await refusal(verifyWebhook({ headers, body: BODY }, secret))).toBe('invalid_signature');
  });
});
