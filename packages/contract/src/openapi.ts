import { z } from 'zod';
import { ErrorBody, Limit, statusOf } from './common';
import { DataSource } from './data-source';
import { Member, User } from './member';
import { Organization } from './organization';
import { type RouteDef, routes } from './routes';
import { SsoSession } from './sso';

type JsonSchema = Record<string, unknown>;

const toSchema = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
  const json = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    override: (ctx) => {
      // The page size travels as a query string but means an integer 1..100.
      if (ctx.zodSchema === Limit) {
        for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
        Object.assign(ctx.jsonSchema, { type: 'integer', minimum: 1, maximum: 100, default: 50 });
      }
    },
  }) as JsonSchema;
  delete json.$schema;
  return json;
};

const parameters = (route: RouteDef) => {
  const out: JsonSchema[] = [];
  for (const [where, schema] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    if (!schema) continue;
    const json = toSchema(schema, 'input');
    const props = (json.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((json.required as string[] | undefined) ?? []);
    for (const [name, prop] of Object.entries(props)) {
      out.push({ name, in: where, required: where === 'path' || required.has(name), schema: prop });
    }
  }
  return out;
};

const errorResponses = (route: RouteDef) => {
  const out: Record<string, JsonSchema> = {};
  for (const title of [...route.errors, 'InternalError' as const]) {
    const status = String(statusOf[title]);
    const prev = out[status];
    out[status] = {
      description: prev ? `${prev.description}, ${title}` : title,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return out;
};

const successResponse = (route: RouteDef): JsonSchema => {
  if (route.status === 302) return { description: 'Redirect to the embed page' };
  if (route.contentType === 'text/html')
    return { description: 'HTML page', content: { 'text/html': { schema: { type: 'string' } } } };
  if (Array.isArray(route.contentType)) {
    const content = Object.fromEntries(
      route.contentType.map((type) => [type, { schema: { type: 'string' } }]),
    );
    return { description: 'Static file', content };
  }
  return {
    description: 'Success',
    content: {
      'application/json': { schema: route.response ? toSchema(route.response, 'output') : {} },
    },
  };
};

/** Builds the OpenAPI 3.1 document of every route in the route table. */
export function buildOpenApiDocument(serverUrl = '/'): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const [operationId, route] of Object.entries(routes) as [string, RouteDef][]) {
    const op: JsonSchema = {
      operationId,
      summary: route.summary,
      tags: [route.tag],
      parameters: parameters(route),
      responses: { [String(route.status)]: successResponse(route), ...errorResponses(route) },
    };
    if (route.auth === 'none') op.security = [];
    if (route.body) {
      op.requestBody = {
        required: true,
        content: { 'application/json': { schema: toSchema(route.body, 'input') } },
      };
    }
    paths[route.path] ??= {};
    paths[route.path]![route.method] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Bridgekit public API',
      version: '0.1.0',
      description:
        'Organizations, data sources and members of the BI service, with API-key auth and SSO for embedding.',
    },
    servers: [{ url: serverUrl }],
    security: [{ bearer: [] }],
    tags: ['Organizations', 'Members', 'Data sources', 'SSO', 'Embed', 'Service'].map((name) => ({
      name,
    })),
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key (`bk_key_…`) or an embed session token from /api/sso/jwt',
        },
      },
      schemas: {
        Error: toSchema(ErrorBody, 'output'),
        Organization: toSchema(Organization, 'output'),
        DataSource: toSchema(DataSource, 'output'),
        Member: toSchema(Member, 'output'),
        User: toSchema(User, 'output'),
        SsoSession: toSchema(SsoSession, 'output'),
      },
    },
  };
}
