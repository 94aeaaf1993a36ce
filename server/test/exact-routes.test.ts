// The exact-path table for the hot routes (http/exact-routes.ts): the same middleware, in the
// same order, and the same errors as Express's router, without walking it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppStack, ExactRoutes } from '../src/http/exact-routes';

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
  // Mounted under another app: Express strips the mount path before the table looks.
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

  it('answers under a mount path too, with what Express set for the mount', async () => {
    calls.length = 0;
    const res = await fetch(`${outerBase}/inner/hot`, { method: 'POST' });
    expect((await res.json()).baseUrl).toBe('/inner');
    expect(calls).toEqual(['front', 'chain']);
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
