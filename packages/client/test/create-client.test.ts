import type { DataSource, Member, OrganizationWithSecret } from '@bridgekit/contract';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { BridgeError, createClient, isBridgeError } from '../src';
import { fakeFetch, json } from './fake-fetch';

const BASE = 'https://bridge.test/';
const ORG = 'org_0000000001';

describe('createClient requests', () => {
  it('fills path params, encodes them, adds the query and returns the body', async () => {
    const { fetch, calls } = fakeFetch(json(200, { data: { id: 'mem_1' } }));
    const client = createClient({ baseUrl: BASE, apiKey: 'bk_key_x' }, fetch);

    const result = await client.getMember({ params: { orgId: ORG, id: 'mem/1 a' } });

    expect(result).toEqual({ data: { id: 'mem_1' } });
    expect(calls[0]?.url).toBe(
      `https://bridge.test/api/public/organizations/${ORG}/members/mem%2F1%20a`,
    );
    expect(calls[0]?.method).toBe('GET');
    expect(calls[0]?.headers).toEqual({
      accept: 'application/json',
      authorization: 'Bearer bk_key_x',
    });
  });

  it('serializes defined query values only', async () => {
    const { fetch, calls } = fakeFetch(
      json(200, { data: [], pagination: { nextCursor: null, hasMore: false } }),
    );
    const client = createClient({ baseUrl: BASE, apiKey: 'k' }, fetch);

    await client.listOrganizations({
      query: { limit: '20', cursor: 'org_abc', include: undefined },
    });

    expect(calls[0]?.url).toBe(
      'https://bridge.test/api/public/organizations?limit=20&cursor=org_abc',
    );
  });

  it('can be called without an argument when the route needs none', async () => {
    const { fetch, calls } = fakeFetch(
      json(200, { data: [], pagination: { nextCursor: null, hasMore: false } }),
    );
    const client = createClient({ baseUrl: BASE, apiKey: 'k' }, fetch);

    await client.listOrganizations();

    expect(calls[0]?.url).toBe('https://bridge.test/api/public/organizations');
  });

  it('sends a JSON body with its content type', async () => {
    const { fetch, calls } = fakeFetch(json(200, { data: { id: 'ds_1' } }));
    const client = createClient({ baseUrl: BASE, apiKey: 'k' }, fetch);

    await client.updateDataSource({
      params: { orgId: ORG, id: 'ds_1' },
      body: { unsetPassword: true },
    });

    expect(calls[0]?.method).toBe('PATCH');
    expect(calls[0]?.headers['content-type']).toBe('application/json');
    expect(calls[0]?.body).toEqual({ unsetPassword: true });
  });

  it('calls the lifecycle routes with their methods, paths and bodies', async () => {
    const { fetch, calls } = fakeFetch(...Array.from({ length: 6 }, () => json(200, { data: {} })));
    const client = createClient({ baseUrl: BASE, apiKey: 'k' }, fetch);
    const member = { orgId: ORG, id: 'mem_1' };

    await client.updateOrganization({
      params: { orgId: ORG },
      query: { include: 'jwtSecret' },
      body: { embedAllowedOrigins: ['https://app.example.com'], customAiContext: null },
    });
    await client.rotateJwtSecret({ params: { orgId: ORG } });
    await client.rotateJwtSecret({ params: { orgId: ORG }, body: { endSessions: true } });
    await client.deleteOrganization({ params: { orgId: ORG } });
    await client.updateMember({ params: member, body: { role: 'ADMIN' } });
    await client.removeMember({ params: member });

    const org = `https://bridge.test/api/public/organizations/${ORG}`;
    expect(calls.map((c) => [c.method, c.url, c.body])).toEqual([
      [
        'PATCH',
        `${org}?include=jwtSecret`,
        { embedAllowedOrigins: ['https://app.example.com'], customAiContext: null },
      ],
      ['POST', `${org}/jwt-secret`, undefined],
      ['POST', `${org}/jwt-secret`, { endSessions: true }],
      ['DELETE', org, undefined],
      ['PATCH', `${org}/members/mem_1`, { role: 'ADMIN' }],
      ['DELETE', `${org}/members/mem_1`, undefined],
    ]);
  });

  it('sends no Authorization header to routes that need none', async () => {
    const { fetch, calls } = fakeFetch(json(200, { data: {} }));
    const client = createClient({ baseUrl: BASE, getSessionToken: () => 'tok' }, fetch);

    await client.ssoExchange({ body: { jwt: 'a.b.c' } });

    expect(calls[0]?.url).toBe('https://bridge.test/api/sso/jwt');
    expect(calls[0]?.headers.authorization).toBeUndefined();
  });

  it('works with a relative base URL', async () => {
    const { fetch, calls } = fakeFetch(json(200, { data: {} }));
    const client = createClient({ baseUrl: '', apiKey: 'k' }, fetch);

    await client.getOrganization({ params: { orgId: ORG } });

    expect(calls[0]?.url).toBe(`/api/public/organizations/${ORG}`);
  });

  it('takes fetch from the options too', async () => {
    const { fetch, calls } = fakeFetch(json(200, { data: {} }));
    const client = createClient({ baseUrl: BASE, apiKey: 'k', fetch });

    await client.getOrganization({ params: { orgId: ORG } });

    expect(calls).toHaveLength(1);
  });

  it('types inputs and results from the contract', () => {
    const client = createClient({ baseUrl: BASE, apiKey: 'k' }, fakeFetch().fetch);
    expectTypeOf(client.getMember).returns.resolves.toEqualTypeOf<{ data: Member }>();
    expectTypeOf(client.deleteDataSource).returns.resolves.toEqualTypeOf<{ data: DataSource }>();
    expectTypeOf(client.rotateJwtSecret).returns.resolves.toEqualTypeOf<{
      data: OrganizationWithSecret;
    }>();
    expectTypeOf(client.rotateJwtSecret)
      .parameter(0)
      .toHaveProperty('body')
      .toEqualTypeOf<{ endSessions?: boolean | undefined } | undefined>();
    expectTypeOf(client.updateDataSource)
      .parameter(0)
      .toHaveProperty('body')
      .toHaveProperty('unsetPassword')
      .toEqualTypeOf<boolean | null | undefined>();
  });
});

describe('createClient errors', () => {
  it('throws a BridgeError with status, title, code, detail, fields, params and request id', async () => {
    const { fetch } = fakeFetch(
      json(
        422,
        {
          error: {
            title: 'VerificationFailed',
            code: 'connection_refused',
            detail: 'Could not connect',
            fieldErrors: { port: 'Refused on this port' },
            fieldCodes: { port: 'connection_refused' },
            params: { port: 6543 },
          },
        },
        { 'x-request-id': 'req_123' },
      ),
    );
    const client = createClient({ baseUrl: BASE, apiKey: 'k' }, fetch);

    const error = await client
      .verifyDataSource({
        params: { orgId: ORG },
        body: { dialect: 'POSTGRES', host: 'h', username: 'u' },
      })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(BridgeError);
    expect(isBridgeError(error)).toBe(true);
    expect(error).toMatchObject({
      name: 'BridgeError',
      status: 422,
      title: 'VerificationFailed',
      code: 'connection_refused',
      detail: 'Could not connect',
      fieldErrors: { port: 'Refused on this port' },
      fieldCodes: { port: 'connection_refused' },
      params: { port: 6543 },
      requestId: 'req_123',
    });
  });

  it('gives null code and empty fieldErrors, fieldCodes and params when the body has none', async () => {
    const { fetch } = fakeFetch(
      json(404, { error: { title: 'NotFound', detail: 'No such member' } }),
    );
    const client = createClient({ baseUrl: BASE, apiKey: 'k' }, fetch);

    const error = await client.getMember({ params: { orgId: ORG, id: 'mem_x' } }).catch((e) => e);

    expect(error).toMatchObject({
      status: 404,
      title: 'NotFound',
      code: null,
      fieldErrors: {},
      fieldCodes: {},
      params: {},
      requestId: null,
    });
  });

  it('maps a response that is not the error shape to HttpError', async () => {
    const { fetch } = fakeFetch(new Response('<h1>Bad gateway</h1>', { status: 502 }));
    const client = createClient({ baseUrl: BASE, apiKey: 'k' }, fetch);

    const error = await client.getOrganization({ params: { orgId: ORG } }).catch((e) => e);

    expect(error).toMatchObject({
      status: 502,
      title: 'HttpError',
      detail: 'The bridge answered HTTP 502.',
    });
  });

  it('maps a failed fetch to NetworkError with status 0 and keeps the cause', async () => {
    const cause = new TypeError('fetch failed');
    const client = createClient({ baseUrl: BASE, apiKey: 'k' }, async () => {
      throw cause;
    });

    const error = await client.getOrganization({ params: { orgId: ORG } }).catch((e) => e);

    expect(error).toMatchObject({ status: 0, title: 'NetworkError', cause });
  });

  it('rethrows an abort as is', async () => {
    const controller = new AbortController();
    const client = createClient({ baseUrl: BASE, apiKey: 'k' }, async (_url, init) => {
      controller.abort();
      throw init.signal?.reason;
    });

    const error = await client
      .getOrganization({ params: { orgId: ORG }, signal: controller.signal })
      .catch((e) => e);

    expect(error).toBeInstanceOf(DOMException);
    expect((error as DOMException).name).toBe('AbortError');
  });

  it('refuses a call with a missing path parameter before any request', async () => {
    const { fetch, calls } = fakeFetch();
    const client = createClient({ baseUrl: BASE, apiKey: 'k' }, fetch);

    await expect(client.getOrganization({ params: { orgId: '' } })).rejects.toThrow(
      'Missing path parameter "orgId"',
    );
    expect(calls).toHaveLength(0);
  });
});
