import { z } from 'zod';
import { ErrorCode, ErrorParams, FieldCodes } from './error-codes';

/** ISO 8601 UTC timestamp with milliseconds and `Z`, e.g. `2026-11-25T21:30:00.000Z`. */
export const Timestamp = z.iso.datetime({ precision: 3 });
export type Timestamp = z.infer<typeof Timestamp>;

/** Opaque id with a type prefix; ids sort by creation time. */
export const idOf = (prefix: string) =>
  z.string().regex(new RegExp(`^${prefix}_[0-9A-Za-z]{10,40}$`), `Must be a ${prefix}_… id`);

export const OrganizationId = idOf('org');
export const DataSourceId = idOf('ds');
export const MemberId = idOf('mem');
export const UserId = idOf('usr');

export const Pagination = z.object({
  nextCursor: z.string().nullable(),
  hasMore: z.boolean(),
});
export type Pagination = z.infer<typeof Pagination>;

/** Every error title; `statusOf` maps each to its HTTP status. */
export const ErrorTitle = z.enum([
  'ValidationError',
  'Unauthorized',
  'Forbidden',
  'NotFound',
  'Conflict',
  'PayloadTooLarge',
  'UnsupportedMediaType',
  'VerificationFailed',
  'TooManyRequests',
  'InternalError',
  'ServiceUnavailable',
]);
export type ErrorTitle = z.infer<typeof ErrorTitle>;

export const statusOf: Record<ErrorTitle, number> = {
  ValidationError: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  Conflict: 409,
  PayloadTooLarge: 413,
  UnsupportedMediaType: 415,
  VerificationFailed: 422,
  TooManyRequests: 429,
  InternalError: 500,
  ServiceUnavailable: 503,
};

/** Field name (dotted path for nested fields) to one message. */
export const FieldErrors = z.record(z.string(), z.string());
export type FieldErrors = z.infer<typeof FieldErrors>;

/** The code of an error that names nothing more specific than its title. */
export const codeOfTitle: Record<ErrorTitle, ErrorCode> = {
  ValidationError: 'validation_failed',
  Unauthorized: 'invalid_credentials',
  Forbidden: 'forbidden',
  NotFound: 'not_found',
  Conflict: 'conflict',
  PayloadTooLarge: 'payload_too_large',
  UnsupportedMediaType: 'unsupported_media_type',
  VerificationFailed: 'verification_failed',
  TooManyRequests: 'rate_limited',
  InternalError: 'internal_error',
  ServiceUnavailable: 'service_unavailable',
};

/**
 * `title` is the class of failure, `code` the precise reason (stable, for translations and
 * branching), `detail` English text. `fieldErrors` and `fieldCodes` have the same keys.
 */
export const ErrorBody = z.object({
  error: z.object({
    title: ErrorTitle,
    code: ErrorCode,
    detail: z.string(),
    fieldErrors: FieldErrors.optional(),
    fieldCodes: FieldCodes.optional(),
    params: ErrorParams.optional(),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** Page size query parameter: an integer 1..100 written in decimal digits, default 50. */
export const Limit = z
  .string()
  .regex(/^[0-9]{1,3}$/, 'Must be an integer from 1 to 100')
  .transform(Number)
  .pipe(
    z
      .number()
      .int()
      .min(1, 'Must be an integer from 1 to 100')
      .max(100, 'Must be an integer from 1 to 100'),
  );

export const Cursor = z.string().min(1).max(64);

const CURSOR_MESSAGE = 'Must be a nextCursor from a previous page';

/** The cursor of a list of records: the id (`<prefix>_…`) of the previous page's last item. */
export const cursorOf = (prefix: string) =>
  Cursor.regex(new RegExp(`^${prefix}_[0-9A-Za-z]{10,40}$`), CURSOR_MESSAGE);

/** `limit` and `cursor` of a list of records whose ids start with `prefix`. */
export const pageQueryOf = (prefix: string) =>
  z.strictObject({
    limit: Limit.optional(),
    cursor: cursorOf(prefix).optional(),
  });
export type PageQuery = z.infer<ReturnType<typeof pageQueryOf>>;

export const dataOf = <T extends z.ZodType>(schema: T) => z.object({ data: schema });
export const pageOf = <T extends z.ZodType>(schema: T) =>
  z.object({ data: z.array(schema), pagination: Pagination });
