import express, { type Express } from 'express';
import './http/types';
import type { Deps } from './deps';
import { bearerAuth } from './http/auth';
import { jsonBody } from './http/body';
import { errorHandler, notFoundRoute } from './http/errors';
import { requestContext } from './http/request-context';
import { memberRoutes } from './routes/members';
import { organizationRoutes } from './routes/organizations';
import { serviceRoutes } from './routes/service';

/** The bridge as an Express app that does not listen: main.ts and tests both use it. */
export function createApp(deps: Deps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (deps.config.trustProxy) app.set('trust proxy', deps.config.trustProxy);

  app.use(requestContext({ log: deps.log }));
  const mw = { auth: bearerAuth(deps), body: jsonBody({ limitBytes: deps.config.bodyLimitBytes }) };
  const router = express.Router();
  serviceRoutes(router, deps);
  organizationRoutes(router, deps, mw);
  memberRoutes(router, deps, mw);
  app.use(router);
  app.use(notFoundRoute);
  app.use(errorHandler);
  return app;
}
