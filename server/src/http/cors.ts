import type { NextFunction, Request, Response } from 'express';
import { forbidden } from '../api-error';

const EXPOSED =
  'X-Request-Id, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, WWW-Authenticate';

export function setCorsHeaders(res: Response, origin: string) {
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Access-Control-Expose-Headers', EXPOSED);
}

/** Takes back what setCorsHeaders set (before the response is sent). */
export function clearCorsHeaders(res: Response) {
  res.removeHeader('Access-Control-Allow-Origin');
  res.removeHeader('Access-Control-Expose-Headers');
}

export interface CorsOptions {
  /** Whether `origin` may call `req` cross-origin. */
  allowOrigin(origin: string, req: Request): Promise<boolean>;
}

/**
 * CORS for `/api/*`: a request with an `Origin` gets CORS headers only when `allowOrigin` says
 * so; a preflight it refuses is answered 403, and any other request it refuses is marked
 * (`req.originRefused`) for authentication to answer 403. Credentials are never allowed: the API
 * authenticates with bearer tokens, not cookies.
 */
export function cors(options: CorsOptions) {
  const { allowOrigin } = options;
  if (typeof allowOrigin !== 'function') throw new Error('cors needs an allowOrigin function');

  const decide = async (req: Request, res: Response, next: NextFunction, origin: string) => {
    const allowed = await allowOrigin(origin, req);
    if (req.method === 'OPTIONS') {
      if (!allowed) return next(forbidden('Origin not allowed', 'origin_not_allowed'));
      setCorsHeaders(res, origin);
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PATCH, DELETE');
      res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, X-Request-Id');
      res.setHeader('Access-Control-Max-Age', '600');
      res.status(204).end();
      return;
    }
    if (allowed) setCorsHeaders(res, origin);
    // Authentication refuses the request itself (403) once it knows the caller.
    else req.originRefused = true;
    next();
  };
  // Synchronous until there is an origin to decide on: most requests (from hosts' backends)
  // carry none, and pass on without a promise.
  return (req: Request, res: Response, next: NextFunction) => {
    varyOnOrigin(res);
    const origin = req.headers.origin;
    if (!origin || !req.path.startsWith('/api/')) return next();
    // The bridge's own pages (full embed) are not cross-origin: browsers send Origin on
    // same-origin POSTs too, and Sec-Fetch-Site is set by the browser, never by the page.
    if (req.headers['sec-fetch-site'] === 'same-origin') return next();
    return decide(req, res, next, origin);
  };
}

/** `res.append('Vary', 'Origin')`, as Express does it, without its generic lookups. */
function varyOnOrigin(res: Response) {
  const prev = res.getHeader('Vary');
  if (!prev) res.setHeader('Vary', 'Origin');
  else
    res.setHeader(
      'Vary',
      Array.isArray(prev) ? [...prev.map(String), 'Origin'] : [String(prev), 'Origin'],
    );
}
