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
  middleware: { auth?: RequestHandler; body?: RequestHandler; before?: RequestHandler[] },
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
    } else if (result instanceof JsonBody) {
      // What res.json would send, serialized earlier.
      res.status(route.status).setHeader('Content-Type', 'application/json; charset=utf-8');
      res.send(result.bytes);
    } else res.status(route.status).json(result);
  });
  router[route.method](expressPath(route.path), ...chain);
}
