import { describe, expect, it, vi } from 'vitest';
import { createClient } from '../src';
import { fakeFetch, json } from './fake-fetch';

const BASE = 'https://bridge.test';
const ORG = 'org_0000000001';
const unauthorized = () =>
  json(401, { error: { title: 'Unauthorized', detail: 'Session expired' } });

describe('createClient with a session', () => {
  it('sends the session token as a bearer token', async () => {
    const { fetch, calls } = fakeFetch(json(200, { data: {} }));
    const getSessionToken = vi.fn(async () => 'sess_1');
    const client = createClient({ baseUrl: BASE, getSessionToken }, fetch);

    await client.getOrganization({ params: { orgId: ORG } });

    expect(getSessionToken).toHaveBeenCalledWith({ forceRefresh: false });
    expect(calls[0]?.headers.authorization).toBe('Bearer sess_1');
  });

  it('on 401 fetches a fresh token once and retries with it', async () => {
    const { fetch, calls } = fakeFetch(unauthorized(), json(201, { data: { id: 'ds_1' } }));
    const getSessionToken = vi.fn(async ({ forceRefresh }: { forceRefresh: boolean }) =>
      forceRefresh ? 'sess_new' : 'sess_old',
    );
    const client = createClient({ baseUrl: BASE, getSessionToken }, fetch);

    const result = await client.createDataSource({
      params: { orgId: ORG },
      body: { dialect: 'POSTGRES', displayName: 'Main', host: 'h', username: 'u' },
    });

    expect(result).toEqual({ data: { id: 'ds_1' } });
    expect(getSessionToken.mock.calls).toEqual([
      [{ forceRefresh: false }],
      [{ forceRefresh: true }],
    ]);
    expect(calls.map((c) => c.headers.authorization)).toEqual([
      'Bearer sess_old',
      'Bearer sess_new',
    ]);
    expect(calls[1]?.body).toEqual(calls[0]?.body);
  });

  it('gives up after the refreshed token is refused too', async () => {
    const { fetch, calls } = fakeFetch(unauthorized(), unauthorized());
    const getSessionToken = vi.fn(async () => 'sess');
    const client = createClient({ baseUrl: BASE, getSessionToken }, fetch);

    await expect(client.getOrganization({ params: { orgId: ORG } })).rejects.toMatchObject({
      status: 401,
      title: 'Unauthorized',
    });
    expect(calls).toHaveLength(2);
    expect(getSessionToken).toHaveBeenCalledTimes(2);
  });

  it('does not retry a 401 when authenticating with an API key', async () => {
    const { fetch, calls } = fakeFetch(unauthorized());
    const client = createClient({ baseUrl: BASE, apiKey: 'bk_key_revoked' }, fetch);

    await expect(client.getOrganization({ params: { orgId: ORG } })).rejects.toMatchObject({
      status: 401,
    });
    expect(calls).toHaveLength(1);
  });

  it('surfaces an error thrown by getSessionToken', async () => {
    const { fetch, calls } = fakeFetch();
    const client = createClient(
      {
        baseUrl: BASE,
        getSessionToken: async () => {
          throw new Error('host session ended');
        },
      },
      fetch,
    );

    await expect(client.getOrganization({ params: { orgId: ORG } })).rejects.toThrow(
      'host session ended',
    );
    expect(calls).toHaveLength(0);
  });
});
