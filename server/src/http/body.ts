import type { IncomingMessage } from 'node:http';
import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import { ApiError } from '../api-error';
import { fromBodyParser } from './errors';

const JSON_TYPE = /^application\/json\s*(;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;
const DIGITS = /^\d+$/;
// What JSON counts as whitespace, before the first character strict parsing looks at.
const LEADING_JSON_SPACE = /^[ \t\n\r]*/;

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
    const length = plainLength(req, limitBytes);
    if (length === undefined) parse(req, res, next);
    else readPlainJson(req, length, next);
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

/**
 * The declared length of a body sent as is (no Content-Encoding, no chunking) and within the
 * limit; undefined for any other body, which body-parser reads (inflating, refusing one too
 * large before reading it, and so on).
 */
function plainLength(req: IncomingMessage, limitBytes: number): number | undefined {
  const { headers } = req;
  const encoding = headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return undefined;
  if (headers['transfer-encoding'] !== undefined) return undefined;
  const declared = headers['content-length'];
  if (declared === undefined || !DIGITS.test(declared)) return undefined;
  const length = Number(declared);
  return length <= limitBytes ? length : undefined;
}

/**
 * A plain body (see plainLength), read and parsed as body-parser's strict JSON parser would:
 * UTF-8 without a byte-order mark, empty as `{}`, only an object or an array at the top, and
 * the same errors for the same faults. Most bodies are plain and small; reading them here
 * spares each request body-parser's streams, decoders and listeners (the SSO exchange's hot
 * path: see docs/performance.md).
 */
function readPlainJson(req: Request, length: number, next: NextFunction) {
  const chunks: Buffer[] = [];
  let received = 0;
  let settled = false;
  const settle = (err?: unknown) => {
    if (settled) return;
    settled = true;
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onFail);
    req.off('close', onFail);
    next(err);
  };
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    chunks.push(chunk);
  };
  const onFail = () => settle(fromBodyParser({ type: 'request.aborted' }));
  const onEnd = () => {
    if (received !== length) return settle(fromBodyParser({ type: 'request.size.invalid' }));
    let text = Buffer.concat(chunks, received).toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.length === 0) {
      req.body = {};
      return settle();
    }
    const first = text[text.match(LEADING_JSON_SPACE)![0].length];
    if (first !== '{' && first !== '[') {
      return settle(fromBodyParser({ type: 'entity.parse.failed' }));
    }
    try {
      req.body = JSON.parse(text);
    } catch {
      return settle(fromBodyParser({ type: 'entity.parse.failed' }));
    }
    settle();
  };
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onFail);
  req.on('close', onFail);
}
