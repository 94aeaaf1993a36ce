import type { BearerCredential, RouteDef } from '@bridgekit/contract';
import { expressPath } from '@bridgekit/contract';
import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import type { z } from 'zod';
import { forbidden } from '../api-error';
import type { Principal } from '../deps';
import { JsonBody } from './json-cache';
import { refuseStrayInput } from './stray-input';
import { parseInput } from './validate';

type In<R, K extends string> = R extends { [P in K]: infer S extends z.ZodType }
  ? z.infer<S>
  : undefined;
type Out<R> = R extends { response: infer S extends z.ZodType } ? z.input<S> : undefined;

/** Who may call a route: any principal, the one its `credential` names, or no one (open routes). */
type PrincipalOf<R extends RouteDef> = R['auth'] extends 'bearer'
  ? R extends { credential: infer C extends BearerCredential }
    ? Extract<Principal, { kind: C }>
    : Principal
  : Principal | undefined;

/** What mountJson runs before a route's handler. */
export interface RouteMiddleware {
  auth?: RequestHandler;
  /**
   * The one credential `auth` itself takes (it refuses every other): the route's `credential`
   * is then checked by it alone, and it sets no `principal` (logout: any signed session).
   */
  authTakesOnly?: BearerCredential;
  body?: RequestHandler;
  before?: RequestHandler[];
}

export interface RouteContext<R extends RouteDef, M extends RouteMiddleware = RouteMiddleware> {
  req: Request;
  res: Response;
  /** Undefined where `auth` checks the credential itself (it sets none). */
  principal: M extends { authTakesOnly: BearerCredential } ? undefined : PrincipalOf<R>;
  params: In<R, 'params'>;
  query: In<R, 'query'>;
  body: In<R, 'body'>;
}

const CREDENTIAL_REFUSALS = {
  apiKey: () => forbidden('This needs an API key, not a session token', 'api_key_required'),
  session: () => forbidden('This needs a session token, not an API key', 'session_required'),
} satisfies Record<BearerCredential, () => Error>;

/** Refuses (403) a principal of another kind than the route's `credential`. */
const requireCredential =
  (credential: BearerCredential): RequestHandler =>
  (req, _res, next) => {
    next(req.principal?.kind === credential ? undefined : CREDENTIAL_REFUSALS[credential]());
  };

/**
 * Mounts one contract route: stray input refused (refuseStrayInput), then auth, then the credential the route takes (its `credential`: 403
 * for the other kind, before the body is read), then the body parser, then validation of
 * params, query and body with the route's schemas; the handler's result (or its pre-serialized
 * JsonBody) is sent with the route's status.
 */
export function mountJson<R extends RouteDef, M extends RouteMiddleware>(
  router: Router,
  route: R,
  middleware: M,
  handler: (ctx: RouteContext<R, M>) => Promise<Out<R> | JsonBody<Out<R>>>,
) {
  const chain: RequestHandler[] = [refuseStrayInput(route), ...(middleware.before ?? [])];
  if (route.auth === 'bearer') {
    if (!middleware.auth) throw new Error(`${route.path} needs an auth middleware`);
    chain.push(middleware.auth);
    if (middleware.authTakesOnly) {
      if (middleware.authTakesOnly !== route.credential) {
        throw new Error(`${route.path} takes ${route.credential ?? 'any credential'}`);
      }
    } else if (route.credential) chain.push(requireCredential(route.credential));
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
    } as RouteContext<R, M>;
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
