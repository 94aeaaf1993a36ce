import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
// Query parameters that carry credentials never reach a log line.
const SECRET_QUERY = /([?&](?:jwt|token|access_token|key|apiKey|api_key)=)[^&]*/gi;
// An API key pasted anywhere else in a URL (path, another parameter) is redacted too.
const API_KEY = /bk_key_[A-Za-z0-9]{32}/g;

export const redactUrl = (url: string) =>
  url.replace(SECRET_QUERY, '$1[redacted]').replace(API_KEY, 'bk_key_[redacted]');

/** Gives every request an id (kept from a well-formed `X-Request-Id`), echoes it and logs the outcome. */
export function requestContext({ log }: { log: Logger }) {
  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.get('x-request-id');
    const id = incoming && SAFE_ID.test(incoming) ? incoming : randomUUID();
    const started = process.hrtime.bigint();
    req.id = id;
    req.log = log.child({ reqId: id });
    res.setHeader('X-Request-Id', id);
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      req.log.info(
        {
          method: req.method,
          url: redactUrl(req.originalUrl),
          status: res.statusCode,
          ms: Math.round(ms * 10) / 10,
        },
        'request',
      );
    });
    next();
  };
}
