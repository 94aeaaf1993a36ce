// The HTTP fast paths of "How the bridge stays fast": plain JSON bodies read without
// body-parser (http/body.ts), JSON answers to non-GET routes written directly (sendJson), and
// the hot routes answered by exact path ahead of Express's dispatch (ExactRoutes). Each must
// answer exactly what the general path answers.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type TestBridge } from '../../test/support/bridge';
import { type AppStack, ExactRoutes } from '../src/http/route';

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

describe('plain JSON bodies read as body-parser reads them', () => {
  let bridge: TestBridge;
  let key: string;
  beforeAll(async () => {
    bridge = await startBridge('sqlite');
    ({ key } = await bridge.newUser());
  });
  afterAll(() => bridge.stop());

  // Sent with Content-Length, these take the plain path; chunked, body-parser reads them.
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
    'answers %s on the SSO exchange exactly as body-parser would',
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

  it('leaves bodies over the limit to body-parser: 413 before reading, with either framing', async () => {
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

describe('ExactRoutes', () => {
  const calls: string[] = [];
  const exact = new ExactRoutes();
  const app = express();
  const router = express.Router();
  const mark = (name: string) => (_req: Request, _res: Response, next: NextFunction) => {
    calls.push(name);
    next();
  };
  const answer = (req: Request, res: Response) => {
    res.json({
      path: req.path,
      originalUrl: req.originalUrl,
      baseUrl: req.baseUrl,
      params: req.params,
      linked: req.res === res && res.req === req,
      locals: typeof res.locals,
    });
  };
  const chain = [mark('chain'), answer];
  router.post('/hot', mark('router'), ...chain);
  router.post('/throws', mark('router'), () => {
    throw new Error('sync');
  });
  const failsHandler = (_req: Request, _res: Response, next: NextFunction) =>
    next(new Error('handler-fails'));
  router.post('/handler-fails', failsHandler);
  exact.add('post', '/hot', chain);
  exact.add('post', '/throws', [
    () => {
      throw new Error('sync');
    },
  ]);
  exact.add('post', '/rejects', [async () => Promise.reject(new Error('async'))]);
  exact.add('post', '/passes', [
    (_req: Request, _res: Response, next: NextFunction) => next(new Error('passed')),
  ]);
  exact.add('post', '/falls-through', [mark('chain')]);
  exact.add('post', '/handler-fails', [failsHandler]);
  const stack: AppStack = {
    front: [mark('front')],
    router,
    notFound: (req, _res, next) => next(new Error(`no route for ${req.path}`)),
    onError: (err: Error, _req, res, _next) => {
      if (err.message === 'handler-fails') throw new Error('the error handler failed');
      res.status(500).json({ caught: err.message });
    },
  };
  exact.mount(app, stack);
  // Mounted under another app (Express passes it a callback): the exact table stays out of it.
  const outer = express();
  outer.use('/inner', app);
  const server = http.createServer(app);
  const outerServer = http.createServer(outer);
  let base = '';
  let outerBase = '';
  const listen = (s: http.Server) =>
    new Promise<string>((resolve) =>
      s.listen(0, '127.0.0.1', () =>
        resolve(`http://127.0.0.1:${(s.address() as AddressInfo).port}`),
      ),
    );
  beforeAll(async () => {
    base = await listen(server);
    outerBase = await listen(outerServer);
  });
  afterAll(async () => {
    for (const s of [server, outerServer]) await new Promise<void>((r) => s.close(() => r()));
  });

  it('answers an exact path by the front middleware and its chain, without the router', async () => {
    calls.length = 0;
    const res = await fetch(`${base}/hot?x=1`, { method: 'POST' });
    expect(await res.json()).toEqual({
      path: '/hot',
      originalUrl: '/hot?x=1',
      baseUrl: '',
      params: {},
      linked: true,
      locals: 'object',
    });
    expect(calls).toEqual(['front', 'chain']);
  });

  it('leaves any other spelling of the path (a trailing slash, case) to the router', async () => {
    calls.length = 0;
    for (const path of ['/hot/', '/HOT']) {
      const res = await fetch(`${base}${path}`, { method: 'POST' });
      expect(res.status).toBe(200);
    }
    expect(calls).toEqual(['front', 'router', 'chain', 'front', 'router', 'chain']);
  });

  it('leaves other methods on the same path to Express (here: none, not found)', async () => {
    const res = await fetch(`${base}/hot`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ caught: 'no route for /hot' });
  });

  it('leaves an app mounted under another app to Express', async () => {
    calls.length = 0;
    const res = await fetch(`${outerBase}/inner/hot`, { method: 'POST' });
    expect((await res.json()).baseUrl).toBe('/inner');
    expect(calls).toEqual(['front', 'router', 'chain']);
  });

  it.each([
    ['/throws', 'sync'],
    ['/rejects', 'async'],
    ['/passes', 'passed'],
    ['/falls-through', 'no route for /falls-through'],
  ])('sends what %s throws, rejects or passes on to the error handler', async (path, message) => {
    const res = await fetch(`${base}${path}`, { method: 'POST' });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ caught: message });
  });

  it("ends with Express's own final handler when the error handler fails", async () => {
    const viaExpress = await fetch(`${base}/handler-fails/`, { method: 'POST' });
    const ahead = await fetch(`${base}/handler-fails`, { method: 'POST' });
    expect(ahead.status).toBe(500);
    expect(viaExpress.status).toBe(500);
    expect(ahead.headers.get('content-type')).toBe(viaExpress.headers.get('content-type'));
    expect(ahead.headers.get('content-security-policy')).toBe("default-src 'none'");
    // Outside production the page shows the stack, whose frames differ: its first line does not.
    const firstLine = async (r: globalThis.Response) => (await r.text()).split('<br>')[0];
    const aheadLine = await firstLine(ahead);
    expect(aheadLine).toBe(await firstLine(viaExpress));
    expect(aheadLine).toContain('Error: the error handler failed');
  });

  it('refuses a path with parameters', () => {
    expect(() => exact.add('get', '/orgs/:id', chain)).toThrow('/orgs/:id has parameters');
  });
});
