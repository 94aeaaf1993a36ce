import fc from 'fast-check';
import { arbitraryOf, type JsonSchema, type Overrides, SEMANTIC } from './schema-arbitraries';

const nest = (depth: number, inner: unknown): unknown => {
  let v = inner;
  for (let i = 0; i < depth; i++) v = i % 2 ? { a: v } : [v];
  return v;
};

/** Values that break a field: wrong types, extremes, huge and odd unicode strings, nesting. */
export const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -0, -1, 1.5, 65536, 2 ** 53 + 1, 1e308, -1e308, '', ' '),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.constantFrom(
    '\u0000',
    '\u202eevil',
    '\ud800',
    '\udfff\ud800',
    'ＡＢＣ',
    'e\u0301',
    '💥'.repeat(300),
    'null',
    '__proto__',
    "'; drop table organizations; --",
    '../../etc/passwd',
    '%00',
  ),
  // Huge strings: some under the 100 kB body limit (field limits answer), some over it (413).
  fc.integer({ min: 300, max: 130_000 }).map((n) => 'x'.repeat(n)),
  fc.integer({ min: 100, max: 40_000 }).map((n) => 'é'.repeat(n)),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 5 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }),
  fc.integer({ min: 1, max: 2000 }).map((d) => nest(d, 'deep')),
);

const oddKey = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', '', 'a.b', 'name '),
);

type Obj = Record<string, unknown>;
type Op = (value: Obj) => unknown;

/** One change to a valid object: a field to a hostile value, removed, added, or the whole replaced. */
const objectOp = (keys: string[]): fc.Arbitrary<Op> =>
  fc.oneof(
    ...(keys.length
      ? [
          fc.tuple(fc.constantFrom(...keys), hostile).map(
            ([k, v]): Op =>
              (o) => ({ ...o, [k]: v }),
          ),
          fc.constantFrom(...keys).map(
            (k): Op =>
              (o) => {
                const { [k]: _, ...rest } = o;
                return rest;
              },
          ),
          fc.constantFrom(...keys).map(
            (k): Op =>
              (o) => ({ ...o, [k]: [o[k]] }),
          ),
          fc.constantFrom(...keys).map(
            (k): Op =>
              (o) => ({ ...o, [k]: { value: o[k] } }),
          ),
        ]
      : []),
    fc.tuple(oddKey, hostile).map(
      ([k, v]): Op =>
        (o) => {
          // defineProperty, so `__proto__` becomes an own key that JSON.stringify sends.
          const copy = { ...o };
          Object.defineProperty(copy, k, {
            value: v,
            enumerable: true,
            configurable: true,
            writable: true,
          });
          return copy;
        },
    ),
    fc.constantFrom<Op>(
      (o) => [o],
      () => null,
      () => 'body',
      () => 42,
      () => [],
      () => ({}),
    ),
  );

/** A body as sent on the wire: JSON text (maybe not valid JSON) and its Content-Type. */
export interface WireBody {
  text: string;
  contentType: string | undefined;
  /** The object it was made from, when there was one (for the secret check). */
  value?: unknown;
}

const RAW_BODIES = [
  '',
  '{',
  '{"a":1,}',
  "{'a':1}",
  'null',
  '[]',
  '"text"',
  '1e999',
  '\ufeff{}',
  '{"name":"a","name":1}',
  '{"name":"\\ud800"}',
  '{"port":123456789012345678901234567890}',
  '{"port":1e999}',
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"x":1}}}',
];

/** Objects the schema accepts, and the same with one to three hostile changes. */
export function objects(
  schema: JsonSchema,
  overrides: Overrides = {},
): { valid: fc.Arbitrary<Obj>; mutated: fc.Arbitrary<unknown> } {
  const keys = Object.keys(schema.properties ?? {});
  const valid = arbitraryOf(schema, { ...SEMANTIC, ...overrides }) as fc.Arbitrary<Obj>;
  const apply = (value: unknown, op: Op) =>
    value && typeof value === 'object' && !Array.isArray(value) ? op(value as Obj) : value;
  const mutated = fc
    .tuple(valid, fc.array(objectOp(keys), { minLength: 1, maxLength: 3 }))
    .map(([v, ops]) => ops.reduce<unknown>(apply, v));
  return { valid, mutated };
}

/** Valid bodies from the schema, and mutations of them: hostile fields, raw text, odd types. */
export function bodies(schema: JsonSchema, overrides: Overrides = {}): fc.Arbitrary<WireBody> {
  const { valid, mutated } = objects(schema, overrides);
  const json = (value: unknown): WireBody => ({
    text: JSON.stringify(value),
    contentType: 'application/json',
    value,
  });
  return fc.oneof(
    { weight: 2, arbitrary: valid.map(json) },
    { weight: 6, arbitrary: mutated.map(json) },
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          fc.constantFrom(...RAW_BODIES),
          // Deep nesting as text, past what JSON.stringify would build: up to the body limit.
          fc.integer({ min: 1000, max: 49_000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
          fc
            .integer({ min: 1000, max: 19_000 })
            .map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`),
        )
        .map((text): WireBody => ({ text, contentType: 'application/json' })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          valid,
          fc.constantFrom(
            undefined,
            'text/plain',
            'application/json; charset=utf-16',
            'application/x-www-form-urlencoded',
            'application/json; charset=latin1',
            'APPLICATION/JSON',
          ),
        )
        .map(([v, contentType]) => ({ ...json(v), contentType })),
    },
  );
}

/** Query strings from the schema, and mutations: hostile values, repeats, unknown keys, bad escapes. */
export function queries(schema: JsonSchema, overrides: Overrides = {}): fc.Arbitrary<string> {
  const keys = Object.keys(schema.properties ?? {});
  const valid = arbitraryOf(schema, overrides) as fc.Arbitrary<Record<string, string>>;
  const encode = (pairs: [string, string][]) =>
    pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  // Node answers a request line over 16 kB itself (431), before the app; stay under it.
  const value = fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 30 }),
    fc.string({ unit: 'binary', maxLength: 30 }),
    fc.constantFrom(
      '0',
      '101',
      '-1',
      '1e2',
      '0x10',
      ' 5',
      '5 ',
      '+1',
      '1.0',
      '99999999999999999999',
      'jwtSecret,x',
      'JWTSECRET',
      '',
      'a\u0000b',
      'org_\u0000',
    ),
    fc.integer({ min: 65, max: 3000 }).map((n) => 'y'.repeat(n)),
  );
  const pairsOf = (o: Record<string, string>) =>
    Object.entries(o).map(([k, v]) => [k, String(v)] as [string, string]);
  return fc.oneof(
    { weight: 2, arbitrary: valid.map((o) => encode(pairsOf(o))) },
    {
      weight: 5,
      arbitrary: fc
        .tuple(
          valid,
          fc.array(
            fc.oneof(
              ...(keys.length ? [fc.tuple(fc.constantFrom(...keys), value)] : []),
              fc.tuple(
                oddKey.map((k) => (k === '' ? 'x' : k)),
                value,
              ),
              fc.tuple(
                fc.constantFrom(...(keys.length ? keys : ['x'])).map((k) => `${k}[]`),
                value,
              ),
              fc.tuple(
                fc.constantFrom(...(keys.length ? keys : ['x'])).map((k) => `${k}[a][b]`),
                value,
              ),
            ),
            { minLength: 1, maxLength: 3 },
          ),
        )
        .map(([o, extra]) => encode([...pairsOf(o), ...(extra as [string, string][])])),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '%',
        '%zz',
        '%E0%A4%A',
        'limit=%FF',
        '&&&',
        '=',
        'limit',
        'a=1=2',
        'include=jwtSecret&include=jwtSecret',
        'cursor=%00',
        'limit=1&limit=2',
      ),
    },
  );
}
