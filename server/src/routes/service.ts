import { expressPath, loadOpenApiDocument, routes } from '@bridgekit/contract';
import type { NextFunction, Request, Response, Router } from 'express';
import { LRUCache } from 'lru-cache';
import { ApiError } from '../api-error';
import type { Deps } from '../deps';
import { type Dependency, type Fault, faultError, faultOf } from '../faults';
import { JsonBody } from '../http/json-cache';
import { mountJson } from '../http/route';
import { refuseStrayInput } from '../http/stray-input';
import { DOCS_CSP, DOCS_HTML, DOCS_SCRIPT, scalarBundlePath } from './docs-page';

const MISSING_RENDERER = 'The reference renderer is missing (npm install, then npm run build)';

const SCRIPT_HEADERS = {
  'Content-Type': 'text/javascript; charset=utf-8',
  'X-Content-Type-Options': 'nosniff',
  // Fixed names: revalidate (Last-Modified) on every load; an unchanged file is a 304.
  'Cache-Control': 'no-cache',
};

/** Streams Scalar's bundle from its file: the bridge never holds its 4 MB in memory. */
function sendScalar(res: Response, next: NextFunction) {
  let file: string;
  try {
    file = scalarBundlePath();
  } catch (cause) {
    throw new ApiError('NotFound', MISSING_RENDERER, { cause });
  }
  res.sendFile(file, { cacheControl: false, headers: SCRIPT_HEADERS }, (err) => {
    if (err && !res.headersSent) {
      next(new ApiError('NotFound', MISSING_RENDERER));
    } else if (err) next(err);
  });
}

/**
 * The origin a request reached this bridge at (`X-Forwarded-Proto` and the host as Express
 * reads them under `trust proxy`): the document's `servers` entry, so a client generated from
 * it needs no base URL. Undefined for a Host header that is no origin.
 */
function requestOrigin(req: Request): string | undefined {
  const host = req.get('host');
  if (!host) return undefined;
  try {
    const url = new URL(`${req.protocol}://${host}`);
    return url.host === host.toLowerCase() ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

export function serviceRoutes(router: Router, deps: Deps) {
  // Built on first request, not at start: the document with its examples is ~180 kB. Its
  // serialized form is kept per origin it is served at (a few: bounded all the same).
  let openApi: Promise<Record<string, unknown>> | undefined;
  const served = new LRUCache<string, JsonBody<Record<string, unknown>>>({ max: 16 });
  mountJson(router, routes.openApi, {}, async ({ req, res }) => {
    openApi ??= loadOpenApiDocument().catch((err: unknown) => {
      openApi = undefined;
      throw err;
    });
    const doc = await openApi;
    const origin = requestOrigin(req) ?? '/';
    res.vary('Host');
    res.vary('X-Forwarded-Proto');
    let body = served.get(origin);
    if (!body) {
      body = JsonBody.of({ ...doc, servers: [{ url: origin, description: 'This bridge' }] });
      served.set(origin, body);
    }
    return body;
  });

  router.get(routes.docs.path, refuseStrayInput(routes.docs), (_req, res) => {
    res.setHeader('Content-Security-Policy', DOCS_CSP);
    res.type('html').send(DOCS_HTML);
  });

  router.get(
    expressPath(routes.docsAsset.path),
    refuseStrayInput(routes.docsAsset),
    (req: Request, res: Response, next: NextFunction) => {
      const file = String(req.params.file);
      if (file === 'scalar.js') return sendScalar(res, next);
      if (file !== 'docs.js') throw new ApiError('NotFound', 'No such reference asset');
      res.set(SCRIPT_HEADERS).send(DOCS_SCRIPT);
    },
  );

  probeRoutes(router, deps);

  mountJson(router, routes.health, {}, async () => {
    const checks = await checkDependencies(deps.probes, deps.config.timeouts.healthzMs);
    const failed = checks.find((c) => c.fault);
    if (failed?.fault) {
      const states = Object.fromEntries(
        checks.map((c) => [c.dependency, c.fault ? 'unavailable' : 'ok']),
      );
      const err = faultError(failed.fault, failed.cause);
      throw new ApiError(err.title, err.message, {
        code: err.code,
        params: { ...err.params, ...states },
        cause: failed.cause,
        headers: err.headers,
      });
    }
    return {
      status: 'ok',
      store: 'ok',
      ...(deps.probes.redis ? { redis: 'ok' as const } : {}),
    } as const;
  });
}

/**
 * `/livez` answers from the process alone; `/readyz` needs the store (Redis is reported, never
 * required: without it API requests go on and only SSO refuses) and answers 503 once a drain
 * has begun, so the balancer stops sending before the listener closes.
 */
function probeRoutes(router: Router, deps: Deps) {
  mountJson(router, routes.live, {}, async () => ({ status: 'ok' }) as const);

  mountJson(router, routes.ready, {}, async () => {
    if (deps.draining) {
      throw new ApiError('ServiceUnavailable', 'This instance is shutting down', {
        code: 'shutting_down',
        params: { retryAfter: 1 },
        headers: { 'Retry-After': '1' },
      });
    }
    const checks = await checkDependencies(deps.probes, deps.config.timeouts.healthzMs);
    const store = checks.find((c) => c.dependency === 'store');
    const redis = checks.find((c) => c.dependency === 'redis');
    if (store?.fault) {
      const err = faultError(store.fault, store.cause);
      throw new ApiError(err.title, err.message, {
        code: err.code,
        params: {
          ...err.params,
          store: 'unavailable',
          ...(redis ? { redis: redis.fault ? 'unavailable' : 'ok' } : {}),
        },
        cause: store.cause,
        headers: err.headers,
      });
    }
    return {
      status: 'ready',
      store: 'ok',
      ...(redis ? { redis: redis.fault ? ('unavailable' as const) : ('ok' as const) } : {}),
    } as const;
  });
}

interface Check {
  dependency: Dependency;
  fault?: Fault;
  cause?: unknown;
}

/**
 * Probes every dependency at once, each bounded by `deadlineMs`: a hung one is reported as timed
 * out while its probe finishes (or fails) in the background, under its own bounded waits.
 */
async function checkDependencies(probes: Deps['probes'], deadlineMs: number): Promise<Check[]> {
  const entries = Object.entries(probes) as [Dependency, () => Promise<void>][];
  return Promise.all(
    entries.map(async ([dependency, probe]): Promise<Check> => {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), deadlineMs);
      });
      try {
        const outcome = await Promise.race([probe(), deadline]);
        if (outcome !== 'late') return { dependency };
        return {
          dependency,
          fault: { dependency, kind: 'timeout' },
          cause: new Error(`no answer within ${deadlineMs} ms`),
        };
      } catch (cause) {
        // Whatever the probe threw, this dependency is what failed.
        return {
          dependency,
          fault: { dependency, kind: faultOf(cause)?.kind ?? 'unavailable' },
          cause,
        };
      } finally {
        clearTimeout(timer);
      }
    }),
  );
}
