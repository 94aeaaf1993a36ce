import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createClient } from '../src';
import { parseRetryAfter } from '../src/retry-after';
import { fakeFetch, json } from './fake-fetch';

const BASE = 'https://bridge.test';
const ORG = 'org_0000000001';
const ok = () => json(200, { data: { id: ORG } });
const busy = (status: 429 | 503, retryAfter?: string) =>
  json(
    status,
    {
      error: { title: status === 429 ? 'TooManyRequests' : 'ServiceUnavailable', detail: 'Later' },
    },
    retryAfter === undefined ? {} : { 'retry-after': retryAfter },
  );

describe('createClient retries', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('retries a GET answered 503 after the Retry-After delay', async () => {
    const { fetch, calls } = fakeFetch(busy(503, '2'), ok());
    const client = createClient({ baseUrl: BASE, apiKey: 'k' }, fetch);

    const pending = client.getOrganization({ params: { orgId: ORG } });
    await vi.advanceTimersByTimeAsync(1999);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);

    await expect(pending).resolves.toEqual({ data: { id: ORG } });
    expect(calls).toHaveLength(2);
  });

  it('retries a GET answered 429 with an HTTP-date Retry-After', async () => {
    vi.setSystemTime(new Date('2026-01-01T00:00:00.000Z'));
    const { fetch, calls } = fakeFetch(busy(429, 'Thu, 01 Jan 2026 00:00:03 GMT'), ok());
    const client = createClient({ baseUrl: BASE, apiKey: 'k' }, fetch);

    const pending = client.getOrganization({ params: { orgId: ORG } });
    await vi.advanceTimersByTimeAsync(2999);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);

    await expect(pending).resolves.toEqual({ data: { id: ORG } });
  });

  it('stops after two retries and throws the last error', async () => {
    const { fetch, calls } = fakeFetch(busy(503, '1'), busy(503, '1'), busy(503, '1'), ok());
    const client = createClient({ baseUrl: BASE, apiKey: 'k' }, fetch);

    const pending = client.getOrganization({ params: { orgId: ORG } }).catch((e) => e);
    await vi.advanceTimersByTimeAsync(5000);

    expect(await pending).toMatchObject({
      status: 503,
      title: 'ServiceUnavailable',
      retryAfter: 1,
    });
    expect(calls).toHaveLength(3);
  });

  it('does not wait for a Retry-After beyond the cap', async () => {
    const { fetch, calls } = fakeFetch(busy(429, '60'), ok());
    const client = createClient({ baseUrl: BASE, apiKey: 'k', retry: { maxDelayMs: 5000 } }, fetch);

    await expect(client.getOrganization({ params: { orgId: ORG } })).rejects.toMatchObject({
      status: 429,
      retryAfter: 60,
    });
    expect(calls).toHaveLength(1);
  });

  it('backs off when Retry-After is missing', async () => {
    const { fetch, calls } = fakeFetch(busy(503), ok());
    const client = createClient({ baseUrl: BASE, apiKey: 'k' }, fetch);

    const pending = client.getOrganization({ params: { orgId: ORG } });
    await vi.advanceTimersByTimeAsync(500);

    await expect(pending).resolves.toEqual({ data: { id: ORG } });
    expect(calls).toHaveLength(2);
  });

  it('honours maxRetries', async () => {
    const { fetch, calls } = fakeFetch(busy(503, '0'), ok());
    const client = createClient({ baseUrl: BASE, apiKey: 'k', retry: { maxRetries: 0 } }, fetch);

    await expect(client.getOrganization({ params: { orgId: ORG } })).rejects.toMatchObject({
      status: 503,
    });
    expect(calls).toHaveLength(1);
  });

  it('never retries a request that changes something', async () => {
    const { fetch, calls } = fakeFetch(busy(503, '0'), ok());
    const client = createClient({ baseUrl: BASE, apiKey: 'k' }, fetch);

    await expect(
      client.deleteDataSource({ params: { orgId: ORG, id: 'ds_1' } }),
    ).rejects.toMatchObject({ status: 503 });
    expect(calls).toHaveLength(1);
  });

  it('stops waiting when the call is aborted', async () => {
    const { fetch, calls } = fakeFetch(busy(503, '5'), ok());
    const client = createClient({ baseUrl: BASE, apiKey: 'k' }, fetch);
    const controller = new AbortController();

    const pending = client
      .getOrganization({ params: { orgId: ORG }, signal: controller.signal })
      .catch((e) => e);
    await vi.advanceTimersByTimeAsync(1000);
    controller.abort();

    expect(((await pending) as DOMException).name).toBe('AbortError');
    expect(calls).toHaveLength(1);
  });
});

describe('parseRetryAfter', () => {
  it('reads delta-seconds', () => {
    expect(parseRetryAfter('120')).toBe(120);
  });

  it('reads an HTTP-date relative to now, never negative', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
  });

  it('ignores a missing or unreadable value', () => {
    expect(parseRetryAfter(null)).toBeNull();
    expect(parseRetryAfter('soon')).toBeNull();
  });
});
