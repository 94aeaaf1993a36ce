import { buildOpenApiDocument, routes } from '@bridgekit/contract';
import type { Router } from 'express';
import { ApiError } from '../api-error';
import type { Deps } from '../deps';
import { mountJson } from '../http/route';
import { renderDocsPage } from './docs-page';

export function serviceRoutes(router: Router, deps: Deps) {
  const openApi = buildOpenApiDocument();
  const docsHtml = renderDocsPage(openApi);

  mountJson(router, routes.openApi, {}, async () => openApi);

  router.get(routes.docs.path, (_req, res) => {
    res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
    res.type('html').send(docsHtml);
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
