import { fileURLToPath } from 'node:url';
import express, { type Express } from 'express';
import './http/types';
import type { Deps } from './deps';
import { createOriginPolicy } from './embed-origins';
import { bearerAuth } from './http/auth';
import { jsonBody } from './http/body';
import { cors } from './http/cors';
import { embedCorsPolicy } from './http/cors-policy';
import { errorHandlerWith, notFoundRoute } from './http/errors';
import { requestContext } from './http/request-context';
import { dataSourceRoutes } from './routes/data-sources';
import { embedRoutes } from './routes/embed';
import { memberRoutes } from './routes/members';
import { organizationRoutes } from './routes/organizations';
import { serviceRoutes } from './routes/service';
import { sessionRoutes } from './routes/sessions';
import { ssoRoutes } from './routes/sso';
import { webhookRoutes } from './routes/webhooks';

// The kit's full-embed bundle (`npm run build:embed`): the same path from src/app.ts and dist/main.js.
const EMBED_ASSETS_DIR = fileURLToPath(
  new URL('../../packages/react/dist/embed/', import.meta.url),
);

export interface AppOptions {
  /** Where the full-embed page's bundle is; the kit's build output unless a test says otherwise. */
  embedAssetsDir?: string;
}

/** The bridge as an Express app that does not listen: main.ts and tests both use it. */
export function createApp(deps: Deps, options: AppOptions = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // One spelling per path: `/API/…` and `/api/…/` are not `/api/…`. Every path rule (CORS and
  // origin enforcement, probes off the log) compares paths exactly, so
  // the router must match the same way.
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  if (deps.config.trustProxy) app.set('trust proxy', deps.config.trustProxy);

  const mw = { auth: bearerAuth(deps), body: jsonBody({ limitBytes: deps.config.bodyLimitBytes }) };
  const router = express.Router({ caseSensitive: true, strict: true });
  // The router tries routes in this order, so the hottest come first (no two paths overlap).
  ssoRoutes(router, deps, mw);
  sessionRoutes(router, deps, mw);
  organizationRoutes(router, deps, mw);
  memberRoutes(router, deps, mw);
  dataSourceRoutes(router, deps, mw);
  webhookRoutes(router, deps, mw);
  serviceRoutes(router, deps);
  embedRoutes(router, deps, {
    assetsDir: options.embedAssetsDir ?? EMBED_ASSETS_DIR,
    body: mw.body,
  });
  app.use(
    requestContext(app, {
      log: deps.log,
      logProbes: deps.config.logProbes,
      metrics: deps.metrics,
      tracing: deps.tracing,
    }),
    cors({ allowOrigin: embedCorsPolicy(deps, createOriginPolicy({ store: deps.store })) }),
    router,
    notFoundRoute,
    errorHandlerWith(deps.failures),
  );
  return app;
}
