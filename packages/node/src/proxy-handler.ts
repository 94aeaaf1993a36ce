import type { IncomingMessage, ServerResponse } from 'node:http';
import { PROXY_READ_ROUTES } from '@bridgekit/client';
import {
  type ErrorCode,
  type ErrorTitle,
  type RouteDef,
  type RouteId,
  routes,
} from '@bridgekit/contract';

/**
 * What the browser may reach through the proxy by default: reads only. The browser's
 * `createProxyClient` (in `@bridgekit/client`) assumes the same list by default.
 */
export const DEFAULT_PROXY_ROUTES: readonly RouteId[] = PROXY_READ_ROUTES;

const PASSED_HEADERS = [
  'content-type',
  'x-request-id',
  'retry-after',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
];
const MAX_BODY_BYTES = 100_000;

export interface ProxyHandlerOptions {
  /** The bridge, e.g. `https://bridge.internal:4000`. */
  baseUrl: string;
  /** The host's API key. It stays on the server: browsers never see it. */
  apiKey: string;
  /**
   * The host's own check of the browser request (its session cookie, say). Return false to
   * answer 401. Required: an open proxy would lend the API key to anyone.
   */
  authorize: (req: IncomingMessage) => boolean | Promise<boolean>;
  /** Route ids of the contract the browser may call (default: the read-only ones). */
  allow?: readonly RouteId[] | undefined;
  /** The path the handler is mounted at, stripped before matching (e.g. `/bridge`). */
  mountPath?: string | undefined;
  fetch?: typeof fetch | undefined;
}

type Handler = (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => Promise<void>;

const toMatcher = (route: RouteDef) => ({
  method: route.method.toUpperCase(),
  pattern: new RegExp(`^${route.path.replace(/\{\w+\}/g, '[^/]+')}$`),
});

/** The proxy's own refusals, in the bridge's error envelope. */
function sendError(
  res: ServerResponse,
  status: number,
  error: { title: ErrorTitle; code: ErrorCode; detail: string },
) {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.end(JSON.stringify({ error }));
}

async function readBody(req: IncomingMessage & { body?: unknown }): Promise<string | undefined> {
  // Behind express.json() the body is already parsed.
  if (req.body !== undefined) return JSON.stringify(req.body);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new RangeError('body too large');
    chunks.push(chunk as Buffer);
  }
  return chunks.length > 0 ? Buffer.concat(chunks).toString('utf8') : undefined;
}

/**
 * A Node/Express handler that forwards an allow-listed set of public-API calls to the bridge
 * with the host's API key. This is how a browser component that needs more than one
 * organization (a host admin console's `OrgPicker`) gets its data without ever holding a key.
 * `include=jwtSecret` is always refused, and browser credentials are never forwarded.
 *
 * @example
 * app.use('/bridge', createProxyHandler({
 *   baseUrl: process.env.BRIDGE_URL!, apiKey: process.env.BRIDGE_API_KEY!,
 *   mountPath: '/bridge', authorize: (req) => isAdminSession(req),
 * }));
 * // in the browser (same `allow` list as `routes`, when not the default):
 * // const client = createProxyClient({ baseUrl: '/bridge' });
 */
export function createProxyHandler(options: ProxyHandlerOptions): Handler {
  if (!options.baseUrl || !options.apiKey) throw new TypeError('baseUrl and apiKey are required');
  if (typeof options.authorize !== 'function') throw new TypeError('authorize is required');
  const allowed = (options.allow ?? DEFAULT_PROXY_ROUTES).map((id) => {
    const route = routes[id] as RouteDef | undefined;
    if (route?.auth !== 'bearer') throw new TypeError(`not a proxiable route: ${id}`);
    return toMatcher(route);
  });
  const base = options.baseUrl.replace(/\/+$/, '');
  const mount = (options.mountPath ?? '').replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;

  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://proxy.invalid');
    const path =
      mount && url.pathname.startsWith(mount)
        ? url.pathname.slice(mount.length) || '/'
        : url.pathname;
    const method = (req.method ?? 'GET').toUpperCase();
    if (!allowed.some((m) => m.method === method && m.pattern.test(path))) {
      const detail = `No route for ${method} ${path}`;
      return sendError(res, 404, { title: 'NotFound', code: 'route_not_found', detail });
    }
    if (url.searchParams.has('include')) {
      const detail = 'include is not available through the proxy';
      return sendError(res, 403, { title: 'Forbidden', code: 'forbidden', detail });
    }
    if (!(await options.authorize(req))) {
      const detail = 'Sign in to the host application first';
      return sendError(res, 401, { title: 'Unauthorized', code: 'invalid_credentials', detail });
    }
    let body: string | undefined;
    if (method !== 'GET' && method !== 'DELETE') {
      try {
        body = await readBody(req);
      } catch {
        const detail = 'Request body is too large';
        return sendError(res, 413, { title: 'PayloadTooLarge', code: 'payload_too_large', detail });
      }
    }
    const upstream = await doFetch(`${base}${path}${url.search}`, {
      method,
      headers: {
        authorization: `Bearer ${options.apiKey}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body,
    });
    res.statusCode = upstream.status;
    for (const name of PASSED_HEADERS) {
      const value = upstream.headers.get(name);
      if (value !== null) res.setHeader(name, value);
    }
    res.end(Buffer.from(await upstream.arrayBuffer()));
  };
}
