import type { RouteDef } from '@bridgekit/contract';
import type { RequestHandler } from 'express';
import { z } from 'zod';
import { ApiError, type FieldFailure } from '../api-error';

/**
 * The query parameters a route declares: its query schema's keys, none without one, or
 * `undefined` when it takes any (a loose schema: the full-embed sign-in's SDK options).
 */
export function declaredQueryNames(route: RouteDef): ReadonlySet<string> | undefined {
  const schema = route.query;
  if (!schema) return new Set();
  if (!(schema instanceof z.ZodObject)) return undefined;
  const catchall = schema._zod.def.catchall;
  if (catchall && catchall._zod.def.type !== 'never') return undefined;
  return new Set(Object.keys(schema.shape));
}

/** Whether a request carries a body: a non-zero length, or one sent in chunks. */
const hasBody = (headers: Record<string, string | string[] | undefined>) =>
  headers['transfer-encoding'] !== undefined ||
  (headers['content-length'] !== undefined && headers['content-length'] !== '0');

/**
 * One rule for stray input on every route, checked before anything else runs (auth, reads,
 * writes): a query parameter the route does not declare, or a body on a route that takes none,
 * is a 400 naming it in `fieldErrors`. A typo never passes silently, and a refused request
 * changes nothing.
 */
export function refuseStrayInput(route: RouteDef): RequestHandler {
  const names = declaredQueryNames(route);
  const takesBody = route.body !== undefined;
  return (req, _res, next) => {
    if (names) {
      const fields: Record<string, FieldFailure> = {};
      for (const name of Object.keys(req.query as object)) {
        if (names.has(name)) continue;
        const failure = { code: 'unknown_field', message: 'Unknown query parameter' } as const;
        Object.defineProperty(fields, name, { value: failure, enumerable: true });
      }
      const unknown = Object.keys(fields);
      if (unknown.length > 0) {
        return next(
          new ApiError('ValidationError', `Unknown query parameter: ${unknown.join(', ')}`, {
            code: 'unknown_parameter',
            fields,
          }),
        );
      }
    }
    if (!takesBody && hasBody(req.headers)) {
      return next(
        new ApiError('ValidationError', `${req.method} ${route.path} takes no request body`, {
          code: 'unexpected_body',
          fields: { body: { code: 'unexpected_body', message: 'This operation takes no body' } },
        }),
      );
    }
    next();
  };
}
