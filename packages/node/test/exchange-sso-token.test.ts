import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { member, organization } from '../../../test/support/fixtures';
import { BridgeError, BridgeSsoError, exchangeSsoToken } from '../src';

const SESSION = {
  sessionToken: 'eyJhbGciOiJIUzI1NiJ9.e30.c2ln',
  expiresAt: '2026-03-01T12:15:00.000Z',
  absoluteExpiresAt: '2026-03-02T00:00:00.000Z',
  organization: organization(),
  member: member({ role: 'MEMBER' }),
};

interface Seen {
  method: string | undefined;
  url: string | undefined;
  contentType: string | undefined;
  body: unknown;
}

let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function readBody(req: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return JSON.parse(text);
}

async function serve(
  status: number,
  body: string,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): Promise<{ baseUrl: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer(async (req, res) => {
    seen.push({
      method: req.method,
      url: req.url,
      contentType: req.headers['content-type'],
      body: await readBody(req),
    });
    res.writeHead(status, { ...headers, 'x-request-id': 'req_123' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}`, seen };
}

describe('exchangeSsoToken', () => {
  it('posts the token as JSON and returns the session', async () => {
    const { baseUrl, seen } = await serve(200, JSON.stringify({ data: SESSION }));
    const session = await exchangeSsoToken({ baseUrl, jwt: 'the.jwt.token' });
    expect(session).toEqual(SESSION);
    expect(seen).toEqual([
      {
        method: 'POST',
        url: '/api/sso/jwt',
        contentType: 'application/json',
        body: { jwt: 'the.jwt.token' },
      },
    ]);
  });

  it('keeps a path prefix and tolerates a trailing slash', async () => {
    const { baseUrl, seen } = await serve(200, JSON.stringify({ data: SESSION }));
    await exchangeSsoToken({ baseUrl: `${baseUrl}/bridge/`, jwt: 'x.y.z' });
    expect(seen[0]?.url).toBe('/bridge/api/sso/jwt');
  });

  it('throws BridgeError with the envelope and the request id', async () => {
    const { baseUrl } = await serve(
      401,
      JSON.stringify({ error: { title: 'Unauthorized', detail: 'Invalid SSO token' } }),
    );
    const error = await exchangeSsoToken({ baseUrl, jwt: 'bad.jwt.token' }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BridgeError);
    expect(error).toMatchObject({
      name: 'BridgeError',
      status: 401,
      title: 'Unauthorized',
      detail: 'Invalid SSO token',
      requestId: 'req_123',
      message: 'Unauthorized: Invalid SSO token',
    });
    // BridgeError's fieldErrors is always an object: empty when the answer had none.
    expect((error as BridgeError).fieldErrors).toEqual({});
  });

  it('keeps BridgeSsoError as a deprecated name of BridgeError', async () => {
    const { baseUrl } = await serve(
      401,
      JSON.stringify({ error: { title: 'Unauthorized', detail: 'Invalid SSO token' } }),
    );
    expect(BridgeSsoError).toBe(BridgeError);
    await expect(exchangeSsoToken({ baseUrl, jwt: 'bad.jwt.token' })).rejects.toBeInstanceOf(
      BridgeSsoError,
    );
  });

  it('passes fieldErrors through', async () => {
    const { baseUrl } = await serve(
      400,
      JSON.stringify({
        error: {
          title: 'ValidationError',
          detail: 'Invalid body',
          fieldErrors: { jwt: 'Required' },
        },
      }),
    );
    await expect(exchangeSsoToken({ baseUrl, jwt: '' })).rejects.toMatchObject({
      status: 400,
      title: 'ValidationError',
      fieldErrors: { jwt: 'Required' },
    });
  });

  it('reports an error answer without an envelope as UnexpectedResponse', async () => {
    const { baseUrl } = await serve(502, '<html>Bad Gateway</html>', {
      'content-type': 'text/html',
    });
    await expect(exchangeSsoToken({ baseUrl, jwt: 'x.y.z' })).rejects.toMatchObject({
      status: 502,
      title: 'UnexpectedResponse',
      requestId: 'req_123',
    });
  });

  it('reports a success body that is not a session as UnexpectedResponse', async () => {
    const { baseUrl } = await serve(200, JSON.stringify({ data: { sessionToken: 'x' } }));
    await expect(exchangeSsoToken({ baseUrl, jwt: 'x.y.z' })).rejects.toMatchObject({
      status: 200,
      title: 'UnexpectedResponse',
    });
  });

  it('reports a success answer that is not JSON as UnexpectedResponse', async () => {
    const { baseUrl } = await serve(200, '<html>Welcome</html>', { 'content-type': 'text/html' });
    await expect(exchangeSsoToken({ baseUrl, jwt: 'x.y.z' })).rejects.toMatchObject({
      status: 200,
      title: 'UnexpectedResponse',
      detail: 'The bridge answered with a body that is not an SSO session',
      requestId: 'req_123',
    });
  });

  it('reports no answer at all as a NetworkError with the cause', async () => {
    const cause = new TypeError('fetch failed');
    const error = await exchangeSsoToken({
      baseUrl: 'https://bridge.example.com',
      jwt: 'x.y.z',
      fetch: async () => {
        throw cause;
      },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BridgeError);
    expect(error).toMatchObject({ status: 0, title: 'NetworkError', cause });
  });

  it('uses the fetch it is given', async () => {
    const calls: string[] = [];
    const fakeFetch: typeof fetch = async (input) => {
      calls.push(String(input));
      return new Response(JSON.stringify({ data: SESSION }), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    };
    const session = await exchangeSsoToken({
      baseUrl: 'https://bridge.example.com',
      jwt: 'x.y.z',
      fetch: fakeFetch,
    });
    expect(session.sessionToken).toBe(SESSION.sessionToken);
    expect(calls).toEqual(['https://bridge.example.com/api/sso/jwt']);
  });
});
