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
    /** `performance.now()` when the request reached the app: what it reads is no older. */
    arrivedAt: number;
  }
}
