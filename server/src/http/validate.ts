import { fieldCodeOf } from '@bridgekit/contract';
import type { z } from 'zod';
import { ApiError, type FieldFailure, notFound } from '../api-error';

const WHAT = { body: 'Request body', query: 'Query string', params: 'Path' } as const;

/** zod issues → refused fields (dotted path → first code and message), unknown keys included. */
export function toFieldFailures(issues: readonly z.core.$ZodIssue[]): Record<string, FieldFailure> {
  const out: Record<string, FieldFailure> = {};
  // Own keys only, defined rather than assigned: a field named `constructor` or `__proto__`
  // must get its entry, not find (or replace) the prototype's.
  const put = (at: string, failure: FieldFailure) => {
    if (!Object.hasOwn(out, at))
      Object.defineProperty(out, at, { value: failure, enumerable: true, writable: true });
  };
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        put([...issue.path, key].join('.'), { code: 'unknown_field', message: 'Unknown field' });
      continue;
    }
    if (issue.path.length === 0) continue;
    // A missing field is "Required", whatever its type: an enum (invalid_value) included.
    const missing =
      (issue.code === 'invalid_type' || issue.code === 'invalid_value') &&
      issue.input === undefined;
    put(issue.path.join('.'), {
      code: fieldCodeOf(issue),
      message: missing ? 'Required' : issue.message,
    });
  }
  return out;
}

const NUL_MESSAGE = 'Must not contain the NUL character (U+0000)';

/**
 * Dotted paths of the strings holding U+0000 in validated input. PostgreSQL text can't store
 * it (SQLSTATE 22021 would be a 500), and no field needs it, so both engines refuse it.
 * Validated input is contract-shaped, so a shallow walk is enough.
 */
function nulFields(value: unknown, path: string[] = [], out: string[] = []): string[] {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) out.push(path.join('.'));
  } else if (value && typeof value === 'object' && path.length < 8) {
    for (const [key, v] of Object.entries(value)) nulFields(v, [...path, key], out);
  }
  return out;
}

/** Parses one part of a request with its contract schema or throws a 400 ValidationError. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: keyof typeof WHAT,
): z.infer<S> {
  // zod 4 omits `input` from issues unless asked; fieldCodeOf needs it to tell "missing" apart.
  const result = schema.safeParse(value ?? (where === 'body' ? undefined : {}), {
    reportInput: true,
  });
  if (result.success) {
    const nul = nulFields(result.data);
    if (nul.length === 0) return result.data;
    // A path id with U+0000 names nothing that can exist.
    if (where === 'params') throw notFound();
    const fields: Record<string, FieldFailure> = {};
    for (const at of nul) {
      const failure = { code: 'nul_character', message: NUL_MESSAGE } as const;
      Object.defineProperty(fields, at, { value: failure, enumerable: true });
    }
    throw new ApiError('ValidationError', `${WHAT[where]} is invalid: ${nul.join(', ')}`, {
      code: 'validation_failed',
      fields,
    });
  }
  const fields = toFieldFailures(result.error.issues);
  const names = Object.keys(fields);
  if (names.length === 0) {
    throw new ApiError('ValidationError', `${WHAT[where]} must be a JSON object`, {
      code: 'invalid_body',
    });
  }
  // A cursor that no page handed out says so by its own code: the client should start over.
  const code = where === 'query' && names.length === 1 && names[0] === 'cursor';
  throw new ApiError('ValidationError', `${WHAT[where]} is invalid: ${names.join(', ')}`, {
    code: code ? 'invalid_cursor' : 'validation_failed',
    fields,
  });
}
