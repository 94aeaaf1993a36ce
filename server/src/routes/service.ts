import { loadOpenApiDocument, routes } from '@bridgekit/contract';
import type { Router } from 'express';
import { ApiError } from '../api-error';
import type { Deps } from '../deps';
import { JsonBody } from '../http/json-cache';
import { mountJson } from '../http/route';
import { renderDocsPage } from './docs-page';

export function serviceRoutes(router: Router, deps: Deps) {
  // Built on first request, not at start: the document with its examples is ~100 kB.
  let openApi: Promise<Record<string, unknown>> | undefined;
  const document = () => {
    openApi ??= loadOpenApiDocument().catch((err: unknown) => {
      openApi = undefined;
      throw err;
    });
    return openApi;
  };

  mountJson(router, routes.openApi, {}, async () => JsonBody.of(await document()));

  router.get(routes.docs.path, async (_req, res) => {
    res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
    res.type('html').send(renderDocsPage(await document()));
  });

  mountJson(router, routes.health, {}, async () => {
    try {
      await deps.store.ping();
    } catch (cause) {
      throw new ApiError('ServiceUnavailable', 'The store is unavailable', {
        cause,
        headers: { 'Retry-After': '2' },
      });
    }
    return { status: 'ok', store: 'ok' } as const;
  });
}
