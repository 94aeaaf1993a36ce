import { z } from 'zod';
import { FieldErrors, Limit } from './common';
import { DataSource, VerifyResult } from './data-source';
import { ErrorParams, FieldCodes } from './error-codes';
import { Member, User } from './member';
import { Organization } from './organization';
import { EmbedSession, SsoSession } from './sso';
import { WebhookDelivery, WebhookEndpoint } from './webhook';

export type JsonSchema = Record<string, unknown>;

/** Response shapes named in `components.schemas`; responses refer to them by `$ref`. */
export const COMPONENT_SCHEMAS = {
  FieldErrors,
  FieldCodes,
  ErrorParams,
  Organization,
  DataSource,
  VerifyResult,
  Member,
  User,
  SsoSession,
  EmbedSession,
  WebhookEndpoint,
  WebhookDelivery,
} as const satisfies Record<string, z.ZodType>;

const componentNames = new Map<unknown, string>(
  Object.entries(COMPONENT_SCHEMAS).map(([name, schema]) => [schema, name]),
);

export const componentRef = (name: keyof typeof COMPONENT_SCHEMAS) => ({
  $ref: `#/components/schemas/${name}`,
});

/**
 * JSON Schema (2020-12) of a zod schema. Output schemas refer to the named components instead
 * of repeating them; `root` is the component being written itself, which stays inline.
 */
export function toSchema(
  schema: z.ZodType,
  io: 'input' | 'output',
  root: unknown = undefined,
): JsonSchema {
  const json = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    override: (ctx) => {
      const name = io === 'output' ? componentNames.get(ctx.zodSchema) : undefined;
      // The page size travels as a query string but means an integer 1..100.
      const replacement =
        ctx.zodSchema === Limit
          ? { type: 'integer', minimum: 1, maximum: 100, default: 50 }
          : name && ctx.zodSchema !== root
            ? { $ref: `#/components/schemas/${name}` }
            : undefined;
      if (!replacement) return;
      for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
      Object.assign(ctx.jsonSchema, replacement);
    },
  }) as JsonSchema;
  delete json.$schema;
  return json;
}

/** `components.schemas`: each named response shape, written once. */
export const componentSchemas = (): Record<string, JsonSchema> =>
  Object.fromEntries(
    Object.entries(COMPONENT_SCHEMAS).map(([name, schema]) => [
      name,
      toSchema(schema, 'output', schema),
    ]),
  );
