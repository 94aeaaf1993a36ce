import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import { ApiError } from '../api-error';

const JSON_TYPE = /^application\/json\s*(;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

/** Requests that carry a body must say `Content-Type: application/json`; the body is size-limited. */
export function jsonBody({ limitBytes }: { limitBytes: number }) {
  if (!Number.isInteger(limitBytes) || limitBytes <= 0)
    throw new Error('limitBytes must be a positive integer');
  const parse = express.json({ limit: limitBytes, strict: true, type: () => true });
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'POST' && req.method !== 'PATCH' && req.method !== 'PUT') return next();
    const type = req.headers['content-type'];
    if (!type || !JSON_TYPE.test(type.trim())) {
      return next(
        new ApiError(
          'UnsupportedMediaType',
          'Send the body as JSON with Content-Type: application/json',
          { code: 'unsupported_media_type' },
        ),
      );
    }
    parse(req, res, next);
  };
}

/**
 * `body` for a route whose body is optional: a request that sends none at all (no
 * Content-Type, no length, no chunks) passes with `req.body` undefined; any other goes to
 * `body`, with its rules (JSON only, within the limit).
 */
export function optionalJsonBody(body: RequestHandler): RequestHandler {
  return (req, res, next) => {
    const { headers } = req;
    const none =
      headers['content-type'] === undefined &&
      headers['transfer-encoding'] === undefined &&
      (headers['content-length'] === undefined || headers['content-length'] === '0');
    if (!none) return body(req, res, next);
    req.body = undefined;
    next();
  };
}
