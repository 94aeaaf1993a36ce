import type { RouteDef } from '@bridgekit/contract';
import { expressPath } from '@bridgekit/contract';
import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import type { z } from 'zod';
import type { Principal } from '../deps';
import { JsonBody } from './json-cache';
import { parseInput } from './validate';

type In<R, K extends string> = R extends { [P in K]: infer S extends z.ZodType }
  ? z.infer<S>
  : undefined;
type Out<R> = R extends { response: infer S extends z.ZodType } ? z.input<S> : undefined;

export interface RouteContext<R extends RouteDef> {
  req: Request;
  res: Response;
  principal: R['auth'] extends 'bearer' ? Principal : Principal | undefined;
  params: In<R, 'params'>;
  query: In<R, 'query'>;
  body: In<R, 'body'>;
}

/**
 * Mounts one contract route: auth, then the body parser, then validation of params, query and
 * body with the route's schemas; the handler's result (or its pre-serialized JsonBody) is sent
 * with the route's status.
 */
export function mountJson<R extends RouteDef>(
  router: Router,
  route: R,
  middleware: {
    auth?: RequestHandler;
    body?: RequestHandler;
    before?: RequestHandler[];
    /** Also answer the route here by its exact path, ahead of the router, when it has no parameters (see ExactRoutes). */
    exact?: ExactRoutes | undefined;
  },
  handler: (ctx: RouteContext<R>) => Promise<Out<R> | JsonBody<Out<R>>>,
) {
  const chain: RequestHandler[] = [...(middleware.before ?? [])];
  if (route.auth === 'bearer') {
    if (!middleware.auth) throw new Error(`${route.path} needs an auth middleware`);
    chain.push(middleware.auth);
  }
  if (route.body) {
    if (!middleware.body) throw new Error(`${route.path} needs a body middleware`);
    chain.push(middleware.body);
  }
  chain.push(async (req: Request, res: Response, _next: NextFunction) => {
    const ctx = {
      req,
      res,
      principal: req.principal,
      params: route.params ? parseInput(route.params, req.params, 'params') : undefined,
      query: route.query ? parseInput(route.query, req.query, 'query') : undefined,
      body: route.body ? parseInput(route.body, req.body, 'body') : undefined,
    } as RouteContext<R>;
    const result = await handler(ctx);
    if (route.status === 204) {
      res.status(204).end();
    } else if (route.method !== 'get') {
      sendJson(
        res,
        route.status,
        result instanceof JsonBody ? result.bytes : JSON.stringify(result),
      );
    } else if (result instanceof JsonBody) {
      // What res.json would send, serialized earlier.
      res.status(route.status).setHeader('Content-Type', 'application/json; charset=utf-8');
      res.send(result.bytes);
    } else res.status(route.status).json(result);
  });
  const path = expressPath(route.path);
  router[route.method](path, ...chain);
  if (middleware.exact && !HAS_PARAMETERS.test(path))
    middleware.exact.add(route.method, path, chain);
}

/**
 * What `res.status(status).json(body)` sends for any method but GET and HEAD (where Express
 * may turn it into a 304), without its per-call settings lookups and header rewriting: the
 * same status, headers and bytes. A string body goes out with the headers in one write.
 */
function sendJson(res: Response, status: number, body: string | Buffer) {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', typeof body === 'string' ? Buffer.byteLength(body) : body.length);
  res.end(body);
}

const HAS_PARAMETERS = /[:*?(]/;

/**
 * The hottest routes, answered by exact method and path ahead of the router. Express's router
 * walks its layers for every request and, for each one, allocates closures, saved state and
 * a match result. A route here runs the same middleware chain, with errors going to the same
 * error handler; a request that differs from the registered path in any way (case, a trailing
 * slash) goes on to the router, which still holds the route and answers it as before. Only
 * paths without parameters can be here.
 */
export class ExactRoutes {
  readonly #chains = new Map<string, RequestHandler[]>();

  add(method: string, path: string, chain: RequestHandler[]) {
    if (HAS_PARAMETERS.test(path)) throw new Error(`${path} has parameters`);
    this.#chains.set(`${method.toUpperCase()} ${path}`, chain);
  }

  readonly middleware: RequestHandler = (req, res, next) => {
    const chain = this.#chains.get(`${req.method} ${req.path}`);
    if (!chain) return next();
    runChain(chain, req, res, next);
  };
}

/** Runs a chain as a router's route does: an error (thrown, rejected or passed on) ends it. */
function runChain(chain: RequestHandler[], req: Request, res: Response, done: NextFunction) {
  let i = 0;
  const step = (err?: unknown) => {
    const handler = chain[i++];
    if (err || !handler) {
      done(err);
      return;
    }
    try {
      const ret: unknown = handler(req, res, step);
      if (ret instanceof Promise) {
        ret.catch((rejected) => done(rejected ?? new Error('Rejected promise')));
      }
    } catch (thrown) {
      done(thrown);
    }
  };
  step();
}
