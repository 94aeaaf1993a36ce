import { expressPath, loadOpenApiDocument, routes } from '@bridgekit/contract';
import type { NextFunction, Request, Response, Router } from 'express';
import { ApiError } from '../api-error';
import type { Deps } from '../deps';
import { JsonBody } from '../http/json-cache';
import { mountJson } from '../http/route';
import { DOCS_CSP, DOCS_HTML, DOCS_SCRIPT, scalarBundlePath } from './docs-page';

const SCRIPT_HEADERS = {
  'Content-Type': 'text/javascript; charset=utf-8',
  'X-Content-Type-Options': 'nosniff',
  // Fixed names: revalidate (Last-Modified) on every load; an unchanged file is a 304.
  'Cache-Control': 'no-cache',
};

/** Streams Scalar's bundle from node_modules: the bridge never holds its 4 MB in memory. */
function sendScalar(res: Response, next: NextFunction) {
  let file: string;
  try {
    file = scalarBundlePath();
  } catch (cause) {
    throw new ApiError('NotFound', 'The reference renderer is not installed (npm install)', {
      cause,
    });
  }
  res.sendFile(file, { cacheControl: false, headers: SCRIPT_HEADERS }, (err) => {
    if (err && !res.headersSent) {
      next(new ApiError('NotFound', 'The reference renderer is not installed (npm install)'));
    } else if (err) next(err);
  });
}

export function serviceRoutes(router: Router, deps: Deps) {
  // Built on first request, not at start: the document with its examples is ~100 kB.
  let openApi: Promise<JsonBody<Record<string, unknown>>> | undefined;
  mountJson(router, routes.openApi, {}, async () => {
    openApi ??= loadOpenApiDocument()
      .then(JsonBody.of)
      .catch((err: unknown) => {
        openApi = undefined;
        throw err;
      });
    return openApi;
  });

  router.get(routes.docs.path, (_req, res) => {
    res.setHeader('Content-Security-Policy', DOCS_CSP);
    res.type('html').send(DOCS_HTML);
  });

  router.get(
    expressPath(routes.docsAsset.path),
    (req: Request, res: Response, next: NextFunction) => {
      const file = String(req.params.file);
      if (file === 'scalar.js') return sendScalar(res, next);
      if (file !== 'docs.js') throw new ApiError('NotFound', 'No such reference asset');
      res.set(SCRIPT_HEADERS).send(DOCS_SCRIPT);
    },
  );

  mountJson(router, routes.health, {}, async () => {
    try {
      await deps.store.ping();
    } catch (cause) {
      throw new ApiError('ServiceUnavailable', 'The store is unavailable', {
        code: 'store_unavailable',
        cause,
        headers: { 'Retry-After': '2' },
      });
    }
    return { status: 'ok', store: 'ok' } as const;
  });
}
