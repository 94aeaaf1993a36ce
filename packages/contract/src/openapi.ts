import { type ErrorTitle, statusOf } from './common';
import type { ErrorCode } from './error-codes';
import { type ApiExamples, type ExampleResponse, loadApiExamples } from './examples';
import { operationExtras, successHeaders } from './openapi-examples';
import { componentRef, componentSchemas, type JsonSchema, toSchema } from './openapi-schema';
import { webhookOperations } from './openapi-webhooks';
import { errorCodesByStatus } from './route-errors';
import { type RouteDef, type RouteId, routes } from './routes';

/** One line per tag, shown above its operations; a new tag needs one. */
export const TAG_DESCRIPTIONS: Record<RouteDef['tag'], string> = {
  Organizations:
    'One organization per customer of your product: its slug, embed settings and the secret your backend signs SSO tokens with. Creating one makes the caller its ADMIN.',
  Members: 'The users of an organization and their role (ADMIN or MEMBER).',
  'Data sources':
    "An organization's database connections. Secrets are accepted, stored encrypted, and never returned: `storedSecrets` names the ones that are set.",
  Webhooks:
    "Where the bridge sends events about an organization (Standard Webhooks: signed with the endpoint's `whsec_` secret, retried with back-off for over a day). The events are under *Webhooks*.",
  SSO: "Sign your product's users into an organization with a short-lived JWT your backend signs with the organization's `jwtSecret`.",
  Embed:
    "The full-embed page the bridge shows inside your product's iframe, its files, and the session it runs on.",
  Service: 'This reference, the OpenAPI document, and the health check for load balancers.',
};

const DESCRIPTION = `Organizations, data sources and members of the BI service, with API-key auth and SSO for embedding.

**Authentication.** Send \`Authorization: Bearer <API key>\` (create a key with \`npx bridge keys create --email you@example.com\`), or an embed session token from \`POST /api/sso/jwt\`. To try a call from this page, paste your key under *Authentication*: it stays in this page and goes only to this bridge, in the \`Authorization\` header, which the bridge never logs.

**Errors** are JSON, \`{"error": {"title", "code", "detail", "fieldErrors"?}}\`. A title always comes with the same status; \`code\` is the precise reason, and each operation declares every status and every \`code\` it can answer (nothing else is answered); \`fieldErrors\` names each rejected field.

**Lists** are paged with \`limit\` (1–100, default 50) and \`cursor\` (the previous page's \`pagination.nextCursor\`).

Every example on this page is a real answer of the bridge, recorded by its test suite, with ids, times and secrets replaced by stable example values.`;

/**
 * The content type of a route's error answer with `status`: a page's own "not found" is a
 * page; every other failure answers JSON, as on any route.
 */
export const errorContentType = (
  route: RouteDef,
  status: number,
): 'application/json' | 'text/html' =>
  status === 404 &&
  route.tag === 'Embed' &&
  route.contentType === 'text/html' &&
  route.status === 200
    ? 'text/html'
    : 'application/json';

/** The content types of a route's success answer (none for a redirect). */
export function successContentTypes(route: RouteDef): string[] {
  // A redirect's answer is its headers; 204 No Content has no body at all.
  if ((route.status >= 300 && route.status < 400) || route.status === 204) return [];
  const type = route.contentType ?? 'application/json';
  return typeof type === 'string' ? [type] : [...type];
}

const example = (response: ExampleResponse | undefined, key: string, type: string) =>
  response && (response.contentType ?? 'application/json') === type
    ? { examples: { [key]: { summary: response.summary, value: response.body } } }
    : {};

/** A query string value as the type its schema describes (`limit=2` is the integer 2). */
const typed = (value: string, schema: JsonSchema) =>
  schema.type === 'integer' || schema.type === 'number' ? Number(value) : value;

function parameters(route: RouteDef, examples: ApiExamples[string]) {
  const out: JsonSchema[] = [];
  for (const [where, schema] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    if (!schema) continue;
    const json = toSchema(schema, 'input');
    const props = (json.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((json.required as string[] | undefined) ?? []);
    const values = (where === 'path' ? examples?.request.params : examples?.request.query) ?? {};
    for (const [name, prop] of Object.entries(props)) {
      const param: JsonSchema = {
        name,
        in: where,
        required: where === 'path' || required.has(name),
        schema: prop,
      };
      if (values[name] !== undefined) param.example = typed(values[name], prop);
      out.push(param);
    }
  }
  return out;
}

function successResponse(route: RouteDef, examples: ApiExamples[string]): JsonSchema {
  const recorded = examples?.success;
  const types = successContentTypes(route);
  if (types.length === 0) {
    const fallback = route.status === 204 ? 'No content' : 'Redirect';
    return { description: recorded?.summary ?? fallback, headers: successHeaders(recorded) };
  }
  const content = Object.fromEntries(
    types.map((type) => {
      const schema =
        type === 'application/json'
          ? route.response
            ? toSchema(route.response, 'output')
            : {}
          : { type: 'string' };
      return [type, { schema, ...example(recorded, 'success', type) }];
    }),
  );
  const description =
    types[0] === 'application/json'
      ? 'Success'
      : types[0] === 'text/html'
        ? 'HTML page'
        : 'Static file';
  return { description, content };
}

/**
 * The error envelope (ErrorBody) with the titles and codes one operation answers with one
 * status: a generated client narrows `error.code` per operation and status.
 */
const errorSchema = (titles: ErrorTitle[], codes: ErrorCode[]): JsonSchema => ({
  type: 'object',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['title', 'code', 'detail'],
      additionalProperties: false,
      properties: {
        title: { type: 'string', enum: titles },
        code: { type: 'string', enum: codes },
        detail: { type: 'string' },
        fieldErrors: componentRef('FieldErrors'),
        fieldCodes: componentRef('FieldCodes'),
        params: componentRef('ErrorParams'),
      },
    },
  },
});

/** The error schemas of the document: one component per distinct set of codes of a status. */
class ErrorSchemas {
  readonly components: Record<string, JsonSchema> = {};
  readonly #names = new Map<string, string>();

  constructor() {
    const firstUse = new Map<string, { titles: ErrorTitle[]; codes: ErrorCode[]; by: RouteId }>();
    for (const id of Object.keys(routes) as RouteId[]) {
      for (const [status, { titles, codes }] of errorCodesByStatus(id, statusOf)) {
        if (errorContentType(routes[id], status) !== 'application/json') continue;
        const key = ErrorSchemas.key(titles, codes);
        if (!firstUse.has(key)) firstUse.set(key, { titles, codes: [...codes].sort(), by: id });
      }
    }
    const perBase = new Map<string, number>();
    const baseOf = (titles: ErrorTitle[]) =>
      titles.map((t) => (t.endsWith('Error') ? t : `${t}Error`)).join('Or');
    for (const { titles } of firstUse.values())
      perBase.set(baseOf(titles), (perBase.get(baseOf(titles)) ?? 0) + 1);
    for (const [key, { titles, codes, by }] of firstUse) {
      const base = baseOf(titles);
      // A title answered with one set of codes everywhere keeps its plain name.
      const name =
        perBase.get(base) === 1 ? base : `${base}Of${by[0]!.toUpperCase()}${by.slice(1)}`;
      this.#names.set(key, name);
      this.components[name] = errorSchema(titles, codes);
    }
  }

  static key = (titles: ErrorTitle[], codes: ErrorCode[]) =>
    `${titles.join(',')}:${[...codes].sort().join(',')}`;

  ref(titles: ErrorTitle[], codes: ErrorCode[]) {
    return { $ref: `#/components/schemas/${this.#names.get(ErrorSchemas.key(titles, codes))}` };
  }
}

/**
 * The error answers of an operation, one per status, each declaring the exact codes the
 * operation can answer with it (ROUTE_ERRORS).
 */
function errorResponses(
  id: RouteId,
  route: RouteDef,
  examples: ApiExamples[string],
  schemas: ErrorSchemas,
) {
  const out: Record<string, JsonSchema> = {};
  for (const [status, { titles, codes }] of errorCodesByStatus(id, statusOf)) {
    const type = errorContentType(route, status);
    const schema = type === 'text/html' ? { type: 'string' } : schemas.ref(titles, codes);
    const media: JsonSchema = { schema };
    for (const title of titles) {
      const recorded = example(examples?.errors[title], title, type).examples;
      if (recorded) media.examples = { ...(media.examples as object), ...recorded };
    }
    out[String(status)] = { description: titles.join(', '), content: { [type]: media } };
  }
  return out;
}

/** Builds the OpenAPI 3.1 document of every route in the route table, with their examples. */
export function buildOpenApiDocument(
  options: { serverUrl?: string; examples?: ApiExamples } = {},
): JsonSchema {
  const { serverUrl = '/', examples = {} } = options;
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const errorSchemas = new ErrorSchemas();
  for (const [operationId, route] of Object.entries(routes) as [RouteId, RouteDef][]) {
    const recorded = examples[operationId];
    const op: JsonSchema = {
      operationId,
      summary: route.summary,
      tags: [route.tag],
      parameters: parameters(route, recorded),
      responses: {
        [String(route.status)]: successResponse(route, recorded),
        ...errorResponses(operationId, route, recorded, errorSchemas),
      },
      ...operationExtras(operationId, route, recorded),
    };
    if (route.auth === 'none') op.security = [];
    // A route that takes one credential names its scheme; the rest take either (`bearer`).
    else if (route.credential) op.security = [{ [route.credential]: [] }];
    if (route.body) {
      const body = recorded?.request.body;
      const media: JsonSchema = { schema: toSchema(route.body, 'input') };
      if (body !== undefined) media.examples = { request: { summary: 'Request', value: body } };
      // A body the route's schema lets be absent (rotating the jwtSecret) is not required.
      const required = !route.body.safeParse(undefined).success;
      op.requestBody = { required, content: { 'application/json': media } };
    }
    paths[route.path] ??= {};
    paths[route.path]![route.method] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Bridgekit public API',
      version: '0.1.0',
      description: DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: serverUrl, description: 'This bridge' }],
    security: [{ bearer: [] }],
    tags: Object.entries(TAG_DESCRIPTIONS).map(([name, description]) => ({ name, description })),
    paths,
    webhooks: webhookOperations(),
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key (`bk_key_…`) or an embed session token from /api/sso/jwt',
        },
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An API key (`bk_key_…`) only: an embed session token gets 403 `api_key_required`',
        },
        session: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An embed session token from /api/sso/jwt only: an API key gets 403 `session_required` (401 on logout)',
        },
      },
      schemas: { ...componentSchemas(), ...errorSchemas.components },
    },
  };
}

/** The document with the committed examples (`packages/contract/src/examples.json`). */
export async function loadOpenApiDocument(serverUrl = '/'): Promise<JsonSchema> {
  return buildOpenApiDocument({ serverUrl, examples: await loadApiExamples() });
}
