import type { BearerCredential, RouteDef } from '@bridgekit/contract';
import { expressPath } from '@bridgekit/contract';
import type {
  ErrorRequestHandler,
  Express,
  NextFunction,
  Request,
  RequestHandler,
  Response,
  Router,
} from 'express';
import finalhandler from 'finalhandler';
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
  /** Also answer the route here by its exact path, ahead of Express's dispatch, when it has no parameters (see ExactRoutes). */
  exact?: ExactRoutes | undefined;
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

/** Everything an app runs for a request, in this order (ExactRoutes.mount mounts it). */
export interface AppStack {
  /** The app-level middleware before the router (request id and access log, CORS). */
  front: RequestHandler[];
  /** Every route, the exact ones included. */
  router: Router;
  /** After the router: what answers a request no route took. */
  notFound: RequestHandler;
  /** The error handler. */
  onError: ErrorRequestHandler;
}

/**
 * The hottest routes, answered by exact method and path ahead of Express's dispatch. For every
 * request Express's app-level router walks its layers (request context, CORS, the router,
 * not-found, the error handler) and then the router walks the routes; each step allocates
 * closures, saved state and a match result. A request here gets what Express's `app.handle`
 * gives it (the app's request and response prototypes, `res.locals`, `req.originalUrl`), then
 * runs `front`, then the route's own chain, with any error going to `onError` and, should that
 * fail too, to Express's own final handler, as in Express. A request whose method and path (up
 * to `?`) differ from a registered one in any way (case, a trailing slash, HEAD, an absolute
 * URL) goes through Express, whose router still holds every route. Only paths without
 * parameters can be here.
 */
export class ExactRoutes {
  readonly #chains = new Map<string, RequestHandler[]>();

  add(method: string, path: string, chain: RequestHandler[]) {
    if (HAS_PARAMETERS.test(path)) throw new Error(`${path} has parameters`);
    this.#chains.set(`${method.toUpperCase()} ${path}`, chain);
  }

  /**
   * Mounts `stack` on `app` and puts the exact routes ahead of Express's dispatch of it, so the
   * two run the same middleware in the same order. Call it once every route is added.
   */
  mount(app: Express, stack: AppStack) {
    app.use(...stack.front, stack.router, stack.notFound, stack.onError);
    const full = new Map<string, RequestHandler[]>();
    for (const [key, chain] of this.#chains) {
      full.set(key, [...stack.front, ...chain, stack.notFound]);
    }
    const withHandle = app as Express & { handle: ExpressHandle };
    const handle = withHandle.handle.bind(app);
    withHandle.handle = (req, res, callback) => {
      const q = req.url.indexOf('?');
      const path = q === -1 ? req.url : req.url.slice(0, q);
      const chain = callback === undefined ? full.get(`${req.method} ${path}`) : undefined;
      if (!chain) return handle(req, res, callback);
      // What app.handle sets up before its router runs (x-powered-by is off, see createApp).
      req.res = res;
      res.req = req;
      Object.setPrototypeOf(req, app.request);
      Object.setPrototypeOf(res, app.response);
      res.locals ??= Object.create(null);
      // What the router sets for its layers.
      req.originalUrl ||= req.url;
      req.baseUrl = '';
      req.params = {};
      req.routeTemplate = path;
      runChain(chain, req, res, (err) => failed(app, stack, err, req, res));
    };
  }
}

/** An error to the error handler and, should that fail too, to Express's final handler. */
function failed(app: Express, stack: AppStack, err: unknown, req: Request, res: Response) {
  const last = finalhandler(req, res, {
    env: app.get('env'),
    onerror: (error: Error) => {
      if (app.get('env') !== 'test') console.error(error.stack || error.toString());
    },
  });
  try {
    stack.onError(err, req, res, last);
  } catch (again) {
    last(again);
  }
}

type ExpressHandle = (req: Request, res: Response, callback?: NextFunction) => void;

/** Runs a chain as a router's route does: an error (thrown, rejected or passed on) ends it. */
function runChain(
  chain: RequestHandler[],
  req: Request,
  res: Response,
  failed: (err: unknown) => void,
) {
  let i = 0;
  const fail = (err: unknown) => failed(err ?? new Error('Rejected promise'));
  // The last handler (not found) always passes on an error, so the chain ends in `failed`.
  const step = (err?: unknown) => {
    const handler = chain[i++];
    if (err) return fail(err);
    if (!handler) return;
    try {
      const ret: unknown = handler(req, res, step);
      if (ret instanceof Promise) ret.catch(fail);
    } catch (thrown) {
      fail(thrown);
    }
  };
  step();
}
