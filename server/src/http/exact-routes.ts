import type { Express, Request, RequestHandler, Response } from 'express';

const HAS_PARAMETERS = /[:*?(]/;

/** Everything an app runs for a request, in this order (ExactRoutes.mount mounts it). */
export interface AppStack {
  /** The app-level middleware before the router (request id and access log, CORS). */
  front: RequestHandler[];
  /** Every route, the exact ones included. */
  router: RequestHandler;
  /** After the router: what answers a request no route took. */
  notFound: RequestHandler;
  /** The error handler. */
  onError: (err: unknown, req: Request, res: Response, next: (err?: unknown) => void) => void;
}

/**
 * A router of our own for the hottest routes (the SSO exchange, session renewal, the
 * organizations list), by exact method and path, mounted as the app's first middleware. A
 * request it knows runs `front` and the route's own chain right there, so Express's router
 * never walks its other layers (request context, CORS, the router, its routes, not found), each
 * step of which allocates a closure, saved state and a match result. An error goes on with
 * `next(err)` to the app's error handler, as from any middleware. A request whose method and
 * path (up to `?`) differ from a registered one in any way (case, a trailing slash, HEAD, an
 * absolute URL) goes on to Express, whose router holds every route as well. Only paths
 * without parameters can be here. What it pays: docs/performance.md.
 */
export class ExactRoutes {
  readonly #chains = new Map<string, RequestHandler[]>();

  add(method: string, path: string, chain: RequestHandler[]) {
    if (HAS_PARAMETERS.test(path)) throw new Error(`${path} has parameters`);
    this.#chains.set(`${method.toUpperCase()} ${path}`, chain);
  }

  /**
   * Mounts this router, then `stack`, on `app` (Express's public `app.use`), so the exact
   * routes run the same middleware in the same order as the router would. Call it once every
   * route is added.
   */
  mount(app: Express, stack: AppStack) {
    const full = new Map<string, RequestHandler[]>();
    for (const [key, chain] of this.#chains) {
      full.set(key, [...stack.front, ...chain, stack.notFound]);
    }
    const exact: RequestHandler = (req, res, next) => {
      const q = req.url.indexOf('?');
      const path = q === -1 ? req.url : req.url.slice(0, q);
      const chain = full.get(`${req.method} ${path}`);
      if (!chain) return next();
      req.routeTemplate = path;
      runChain(chain, req, res, next);
    };
    app.use(exact, ...stack.front, stack.router, stack.notFound, stack.onError);
  }
}

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

/** `true` when `path` can be in an ExactRoutes table (it has no parameters). */
export const isExactPath = (path: string) => !HAS_PARAMETERS.test(path);
