import { randomUUID } from 'node:crypto';
import type { Express, NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
// Query parameters that carry credentials never reach a log line.
const SECRET_QUERY = /([?&](?:jwt|token|access_token|key|apiKey|api_key)=)[^&]*/gi;
// An API key pasted anywhere else in a URL (path, another parameter) is redacted too.
const API_KEY = /bk_key_[A-Za-z0-9]{32}/g;

export const redactUrl = (url: string) =>
  url.replace(SECRET_QUERY, '$1[redacted]').replace(API_KEY, 'bk_key_[redacted]');

const LOG = Symbol('bk.log');

/**
 * Gives every request an id (kept from a well-formed `X-Request-Id`), echoes it and logs the
 * outcome. `req.log` (bound to the id) is made on first use: most requests only write the
 * access line.
 */
export function requestContext(app: Express, { log }: { log: Logger }) {
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: Request & { [LOG]?: Logger }) {
      this[LOG] ??= log.child({ reqId: this.id });
      return this[LOG];
    },
  });
  // The access line has fixed fields, none secret (the URL is redacted above), so it skips the
  // logger's path redaction, the costliest part of writing it.
  const access = log.child({}, { redact: [] });

  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && SAFE_ID.test(incoming) ? incoming : randomUUID();
    const started = performance.now();
    req.id = id;
    res.setHeader('X-Request-Id', id);
    res.on('finish', () => {
      access.info(
        {
          reqId: id,
          method: req.method,
          url: redactUrl(req.originalUrl),
          status: res.statusCode,
          ms: Math.round((performance.now() - started) * 10) / 10,
        },
        'request',
      );
    });
    next();
  };
}
