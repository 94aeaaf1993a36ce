import type { Logger } from 'pino';
import type { Principal } from '../deps';

declare module 'express-serve-static-core' {
  interface Request {
    /** The request id, also sent as `X-Request-Id`. */
    id: string;
    /** A logger bound to the request id. */
    log: Logger;
    /** Set by CORS when a cross-site `Origin` is not allowed for what the request addresses. */
    originRefused?: boolean;
    /** Set by the auth middleware on authenticated routes. */
    principal?: Principal;
    /**
     * The store version of organizations and members (Store.version of LIST_VERSION_TABLES),
     * when authentication read it in the same round trip (PostgreSQL); what the request builds
     * from those tables may be cached under it.
     */
    storeVersion?: string;
    /** The route answered by exact path (ExactRoutes), for metrics and traces. */
    routeTemplate?: string;
  }
}
