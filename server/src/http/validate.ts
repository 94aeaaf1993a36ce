import type { FieldErrors } from '@bridgekit/contract';
import type { z } from 'zod';
import { ApiError } from './api-error';

const WHAT = { body: 'Request body', query: 'Query string', params: 'Path' } as const;

/** zod issues → `fieldErrors` (dotted path → first message), unknown keys included. */
export function toFieldErrors(issues: readonly z.core.$ZodIssue[]): FieldErrors {
  const out: FieldErrors = {};
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const at = [...issue.path, key].join('.');
        out[at] ??= 'Unknown field';
      }
      continue;
    }
    if (issue.path.length === 0) continue;
    const at = issue.path.join('.');
    out[at] ??=
      issue.code === 'invalid_type' && issue.input === undefined ? 'Required' : issue.message;
  }
  return out;
}

/** Parses one part of a request with its contract schema or throws a 400 ValidationError. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: keyof typeof WHAT,
): z.infer<S> {
  // zod 4 omits `input` from issues unless asked; toFieldErrors needs it to tell "missing" apart.
  const result = schema.safeParse(value ?? (where === 'body' ? undefined : {}), {
    reportInput: true,
  });
  if (result.success) return result.data;
  const fieldErrors = toFieldErrors(result.error.issues);
  const fields = Object.keys(fieldErrors);
  if (fields.length === 0) {
    throw new ApiError('ValidationError', `${WHAT[where]} must be a JSON object`);
  }
  throw new ApiError('ValidationError', `${WHAT[where]} is invalid: ${fields.join(', ')}`, {
    fieldErrors,
  });
}
