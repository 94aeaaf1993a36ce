import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../api-error';
import type { FailureLog } from '../failure-log';
import { unavailableError } from '../faults';
import { isUnstorableText } from '../store/db';

/** JSON 404 for every unknown route. */
export function notFoundRoute(req: Request, _res: Response, next: NextFunction) {
  next(
    new ApiError('NotFound', `No route for ${req.method} ${req.path}`, { code: 'route_not_found' }),
  );
}

/** Body-parser failures by their stable `type` (http/body.ts reads plain bodies itself and says the same). */
export function fromBodyParser(err: { type?: string; status?: number }): ApiError | undefined {
  switch (err.type) {
    case 'entity.parse.failed':
      return new ApiError('ValidationError', 'Malformed JSON body', { code: 'malformed_json' });
    case 'entity.too.large':
      return new ApiError('PayloadTooLarge', 'Request body is too large', {
        code: 'payload_too_large',
      });
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError('UnsupportedMediaType', 'Send the body as UTF-8 JSON', {
        code: 'unsupported_media_type',
      });
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new ApiError('ValidationError', 'Request body could not be read', {
        code: 'body_unreadable',
      });
    default:
      // Other client errors from Express itself (bad %-encoding in a path, corrupt gzip body).
      return err.status === 400
        ? new ApiError('ValidationError', 'Malformed request', { code: 'malformed_request' })
        : undefined;
  }
}

/**
 * The error handler of an app whose dependency failures (503s) are summarised in `failures`
 * rather than logged once a request.
 */
export const errorHandlerWith =
  (failures: FailureLog | undefined) =>
  (err: unknown, req: Request, res: Response, next: NextFunction) =>
    handleError(err, req, res, next, failures);

/** Turns anything thrown into the error envelope; internals are logged with the request id, never sent. */
export function errorHandler(err: unknown, req: Request, res: Response, next: NextFunction) {
  handleError(err, req, res, next, undefined);
}

function handleError(
  err: unknown,
  req: Request,
  res: Response,
  _next: NextFunction,
  failures: FailureLog | undefined,
) {
  let apiError =
    err instanceof ApiError ? err : fromBodyParser(err as { type?: string; status?: number });
  if (!apiError && isUnstorableText(err)) {
    apiError = new ApiError('ValidationError', 'Text must not contain the NUL character (U+0000)', {
      code: 'nul_character',
      cause: err,
    });
  }
  // A dependency down, slow or full: 503 with Retry-After, whatever the path that met it.
  apiError ??= unavailableError(err);
  if (!apiError) {
    (req.log ?? console).error({ err }, 'unhandled error');
    apiError = new ApiError(
      'InternalError',
      'Something went wrong; quote the request id when reporting it',
      { code: 'internal_error' },
    );
  } else if (apiError.cause && failures && apiError.status === 503) {
    const cause = apiError.cause as { message?: unknown };
    // Keyed by the words too: a store that times out and one that refuses are counted apart.
    failures.report(`${apiError.code}: ${apiError.message}`, apiError.message, {
      err: typeof cause.message === 'string' ? cause.message : String(cause),
      reqId: req.id,
    });
  } else if (apiError.cause) {
    req.log?.warn(
      { err: apiError.cause, title: apiError.title, code: apiError.code },
      apiError.message,
    );
  }
  if (res.headersSent) {
    res.end();
    return;
  }
  setErrorHeaders(res, apiError);
  res.status(apiError.status).json(apiError.toBody());
}

/** The headers every error answer carries, JSON or HTML: its own (Retry-After) and the 401 challenge. */
export function setErrorHeaders(res: Response, err: ApiError) {
  for (const [name, value] of Object.entries(err.headers)) res.setHeader(name, value);
  if (err.status === 401) res.setHeader('WWW-Authenticate', 'Bearer');
}
