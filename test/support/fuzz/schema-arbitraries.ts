import fc from 'fast-check';
import { z } from 'zod';

/** Every secret the fuzzer sends carries this marker, so one search finds any of them. */
export const MARK = 'FUZZSECRET';
const SECRET_FIELD = /password|passphrase|privatekey|jsonkey/i;

/** The parts of a JSON schema (from `z.toJSONSchema`) the contract's inputs use. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
}

export const jsonSchemaOf = (schema: z.ZodType) =>
  z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;

/** Arbitraries by field name where the type alone would make poor values (or leave loopback). */
export type Overrides = Record<string, fc.Arbitrary<unknown>>;

const nonBlank = fc
  .string({ minLength: 1, maxLength: 40, unit: 'grapheme' })
  .filter((s) => s.trim() !== '');

/**
 * An address the contract's email rule accepts (Zod's `z.email()`): a local part of dot-separated
 * runs of letters, digits and `_'+-`, a domain of labels that start with a letter or digit, a
 * top-level domain of letters. fast-check's own `emailAddress()` makes RFC 5322 addresses
 * (`a{b@c.mp`) the rule refuses, which would leave a run with no valid body at all.
 */
const emailParts = fc.tuple(
  fc
    .array(fc.stringMatching(/^[a-z0-9_'+-]{0,7}[a-z0-9_+-]$/), { minLength: 1, maxLength: 3 })
    .map((runs) => runs.join('.')),
  fc
    .array(fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,10}$/), { minLength: 1, maxLength: 2 })
    .map((labels) => labels.join('.')),
);

/** What JSON Schema can't say about some fields (`trim`, email format, origin rules). */
export const SEMANTIC: Overrides = {
  email: fc.oneof(
    emailParts.map(([local, domain]) => `${local}@${domain}.com`),
    // Blanks around and upper case: trimmed, and the domain compared case-blind.
    emailParts.map(([local, domain]) => ` ${local}@${domain}.Example.COM `),
  ),
  name: nonBlank,
  displayName: nonBlank,
  url: fc.constantFrom(
    'https://hooks.example.com/bridge',
    'http://hooks.example.org:8080/in?source=bridge',
    ' HTTPS://Hooks.Example.NET/Path ',
  ),
  embedAllowedOrigins: fc.array(
    fc.constantFrom(
      'https://app.example.com',
      'https://*.example.org',
      'http://localhost:3000',
      'https://Bücher.example:8443',
      'HTTPS://APP.EXAMPLE.NET/',
    ),
    { maxLength: 3 },
  ),
};

/** A value the schema accepts (modulo refinements JSON Schema can't say, like `trim`). */
export function arbitraryOf(
  schema: JsonSchema,
  overrides: Overrides = {},
  name?: string,
): fc.Arbitrary<unknown> {
  if (name && overrides[name]) return overrides[name];
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => arbitraryOf(s, overrides, name)));
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (Array.isArray(schema.type)) {
    return fc.oneof(
      ...schema.type.map((type) => arbitraryOf({ ...schema, type }, overrides, name)),
    );
  }
  switch (schema.type) {
    case 'string': {
      const minLength = schema.minLength ?? 0;
      const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? 40, 40));
      if (name && SECRET_FIELD.test(name)) {
        return fc
          .tuple(fc.stringMatching(/^[0-9a-f]{8}$/), fc.string({ maxLength: 20 }))
          .map(([id, s]) => `${MARK}-${id}-${s}`);
      }
      if (schema.pattern) {
        return fc
          .stringMatching(new RegExp(schema.pattern))
          .filter((s) => s.length >= minLength && s.length <= (schema.maxLength ?? Infinity));
      }
      return fc.string({ minLength, maxLength, unit: 'grapheme' });
    }
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -(2 ** 31), max: schema.maximum ?? 2 ** 31 });
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(arbitraryOf(schema.items ?? {}, overrides), {
        maxLength: Math.min(schema.maxItems ?? 4, 4),
      });
    case 'object': {
      const shape = Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([k, s]) => [k, arbitraryOf(s, overrides, k)]),
      );
      return fc.record(shape, { requiredKeys: schema.required ?? [] });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}
