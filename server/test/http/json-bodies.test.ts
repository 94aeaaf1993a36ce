// JSON request bodies (http/body.ts): the same answer whether a body comes with a
// Content-Length or chunked, body-parser's strict rules and errors, and a client that hangs up
// mid-body costs nothing.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type TestBridge } from '../../../test/support/bridge';

interface Answer {
  status: number;
  type: string | undefined;
  length: string | undefined;
  body: string;
}

/** One request over node:http, with the body sent with Content-Length or chunked. */
function send(
  url: string,
  method: string,
  body: Buffer | string,
  framing: 'length' | 'chunked',
  headers: Record<string, string> = { 'content-type': 'application/json' },
): Promise<Answer> {
  const bytes = Buffer.from(body);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: res.headers['content-type'],
          length: res.headers['content-length'],
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.on('error', reject);
    if (framing === 'length') req.setHeader('content-length', bytes.length);
    else req.setHeader('transfer-encoding', 'chunked');
    // Two writes, so a chunked body really arrives in pieces.
    req.write(bytes.subarray(0, bytes.length >> 1));
    req.end(bytes.subarray(bytes.length >> 1));
  });
}

describe('JSON request bodies', () => {
  let bridge: TestBridge;
  let key: string;
  beforeAll(async () => {
    bridge = await startBridge('sqlite');
    ({ key } = await bridge.newUser());
  });
  afterAll(() => bridge.stop());

  // Each sent with a Content-Length and chunked: the framing must not change the answer.
  const bodies: [string, string | Buffer][] = [
    ['an object', '{"jwt":"a.b.c"}'],
    ['JSON whitespace before the object', ' \t\r\n{"jwt":"a.b.c"}'],
    [
      'a UTF-8 byte-order mark',
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"jwt":"x"}')]),
    ],
    ['an empty body', ''],
    ['an array', '[1,2]'],
    ['a string', '"a.b.c"'],
    ['a number after whitespace', '  42'],
    ['null', 'null'],
    ['truncated JSON', '{"jwt":'],
    ['a trailing comma', '{"jwt":"a",}'],
    ['a non-breaking space before the object', '\u00a0{"jwt":"a"}'],
    [
      'invalid UTF-8 inside a string',
      Buffer.from([0x7b, 0x22, 0x6a, 0x77, 0x74, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]),
    ],
    ['an unknown field', '{"jwt":"a.b.c","extra":1}'],
    ['non-ASCII text', '{"jwt":"é—ü"}'],
  ];

  it.each(bodies)(
    'answers %s on the SSO exchange the same with either framing',
    async (_, body) => {
      const url = `${bridge.url}/api/sso/jwt`;
      const plain = await send(url, 'POST', body, 'length');
      const parsed = await send(url, 'POST', body, 'chunked');
      expect(plain).toEqual(parsed);
      // Nothing here is a valid token: each is refused, as a client error.
      expect([400, 401]).toContain(plain.status);
    },
  );

  it('answers a created organization with the same status, headers and JSON either way', async () => {
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
    const url = `${bridge.url}/api/public/organizations`;
    const plain = await send(url, 'POST', '{"name":"Plain"}', 'length', headers);
    const chunked = await send(url, 'POST', '{"name":"Chunked"}', 'chunked', headers);
    expect([plain.status, chunked.status]).toEqual([201, 201]);
    expect(plain.type).toBe('application/json; charset=utf-8');
    expect(chunked.type).toBe(plain.type);
    expect(Number(plain.length)).toBe(Buffer.byteLength(plain.body));
    expect(JSON.parse(plain.body).data.name).toBe('Plain');
    expect(JSON.parse(chunked.body).data.name).toBe('Chunked');
  });

  it('answers 413 to a body over the limit, with either framing', async () => {
    const big = JSON.stringify({ jwt: 'x'.repeat(200_000) });
    const url = `${bridge.url}/api/sso/jwt`;
    for (const framing of ['length', 'chunked'] as const) {
      const res = await send(url, 'POST', big, framing);
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body).error).toMatchObject({
        title: 'PayloadTooLarge',
        code: 'payload_too_large',
      });
    }
  });

  it('answers 400 malformed_json to a body that is not JSON, naming no field', async () => {
    const res = await send(`${bridge.url}/api/sso/jwt`, 'POST', '{"jwt":', 'length');
    expect(res.status).toBe(400);
    const { error } = JSON.parse(res.body);
    expect(error).toMatchObject({ title: 'ValidationError', code: 'malformed_json' });
    expect(error.fieldErrors).toBeUndefined();
  });

  it('answers 400 with fieldErrors.jwt to an empty body (read as {})', async () => {
    const res = await send(`${bridge.url}/api/sso/jwt`, 'POST', '', 'length');
    expect(res.status).toBe(400);
    const { error } = JSON.parse(res.body);
    expect(error.title).toBe('ValidationError');
    expect(error.fieldErrors.jwt).toBeDefined();
  });

  it('answers a client that hangs up mid-body with nothing, and goes on serving', async () => {
    const { port } = new URL(bridge.url);
    const net = await import('node:net');
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => {
        socket.write(
          'POST /api/sso/jwt HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
            'Content-Length: 100\r\n\r\n{"jwt":',
        );
        setTimeout(() => socket.destroy(), 50);
      });
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    const after = await send(`${bridge.url}/api/sso/jwt`, 'POST', '{"jwt":"a.b.c"}', 'length');
    expect(after.status).toBe(401);
  });
});
