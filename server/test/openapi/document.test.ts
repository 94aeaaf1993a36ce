import {
  loadOpenApiDocument,
  type RouteDef,
  routes,
  statusOf,
  WebhookEventType,
} from '@bridgekit/contract';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type TestBridge } from '../../../test/support/bridge';
import { createApp } from '../../src/app';

interface RouterLayer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: RouterLayer[] };
}

/** Every (METHOD, path) an Express 5 app serves, `:param` written as `{param}`. */
function servedRoutes(stack: RouterLayer[]): string[] {
  const out: string[] = [];
  for (const layer of stack) {
    if (layer.route) {
      const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
      for (const path of paths) {
        for (const [method, on] of Object.entries(layer.route.methods)) {
          if (on) out.push(`${method.toUpperCase()} ${path.replace(/:(\w+)/g, '{$1}')}`);
        }
      }
    } else if (layer.handle?.stack) {
      out.push(...servedRoutes(layer.handle.stack));
    }
  }
  return out;
}

describe('OpenAPI document', () => {
  let bridge: TestBridge;
  // biome-ignore lint/suspicious/noExplicitAny: the served document is checked by the validator.
  let doc: any;
  let served: Set<string>;
  let documented: Set<string>;

  beforeAll(async () => {
    bridge = await startBridge('sqlite');
    doc = (await bridge.request('GET', '/api/public/openapi.json')).body;
    const app = createApp(bridge.deps) as unknown as { router: { stack: RouterLayer[] } };
    served = new Set(servedRoutes(app.router.stack));
    documented = new Set(
      Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
        Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
      ),
    );
  });
  afterAll(() => bridge.stop());

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc);
    if (!result.valid) console.error(JSON.stringify(result.errors, null, 2));
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('is the document built from the route table, served at its own origin', async () => {
    expect(doc).toEqual(await loadOpenApiDocument(bridge.url));
    expect(doc.servers).toEqual([{ url: bridge.url, description: 'This bridge' }]);
  });

  it('documents exactly the routes of the route table', () => {
    const table = new Set(Object.values(routes).map((r) => `${r.method.toUpperCase()} ${r.path}`));
    expect([...documented].sort()).toEqual([...table].sort());
  });

  const operation = (route: RouteDef) => doc.paths[route.path][route.method];

  it('gives every operation a curl sample whose one Authorization header names its credential', () => {
    for (const [id, route] of Object.entries(routes) as [string, RouteDef][]) {
      const curl = operation(route)['x-codeSamples']?.find(
        (s: { label: string }) => s.label === 'curl',
      );
      expect(curl?.source, id).toMatch(/^curl /);
      const authorization = (curl.source as string).match(/Authorization:[^"'\n]*/gi) ?? [];
      if (route.auth === 'none') expect(authorization, id).toEqual([]);
      else if (route.credential === 'session') {
        // An API key gets 403 session_required (401 on logout): only a session token works.
        expect(authorization, id).toEqual(['Authorization: Bearer $BRIDGEKIT_SESSION_TOKEN']);
      } else {
        // API-key-only routes, and those that take either, show the key.
        expect(authorization, id).toEqual(['Authorization: Bearer $BRIDGEKIT_API_KEY']);
      }
      expect(curl.source, id).not.toMatch(/bk_key_[A-Za-z0-9]{32}/);
      // Credentials are shell variables, never the recorded example token.
      expect(curl.source, id).not.toMatch(/\beyJ[\w-]*\./);
    }
  });

  it('marks a credential only on bearer routes, and session-only exactly the session calls', () => {
    const table = Object.entries(routes) as [string, RouteDef][];
    expect(table.filter(([, r]) => r.auth === 'none' && r.credential).map(([id]) => id)).toEqual(
      [],
    );
    expect(table.filter(([, r]) => r.credential === 'session').map(([id]) => id)).toEqual([
      'ssoSession',
      'ssoRefresh',
      'ssoLogout',
    ]);
    expect(table.filter(([, r]) => r.credential === 'apiKey').map(([id]) => id)).toEqual([
      'createOrganization',
      'deleteOrganization',
      'rotateJwtSecret',
      'listWebhookEndpoints',
      'createWebhookEndpoint',
      'getWebhookEndpoint',
      'updateWebhookEndpoint',
      'deleteWebhookEndpoint',
      'rotateWebhookSecret',
      'testWebhookEndpoint',
      'listWebhookDeliveries',
    ]);
  });

  it('describes every webhook event in the webhooks section: its envelope and signature headers', () => {
    const hooks = doc.webhooks as Record<string, { post: typeof doc }>;
    expect(Object.keys(hooks).sort()).toEqual([...WebhookEventType.options, 'webhook.test'].sort());
    for (const [type, { post }] of Object.entries(hooks)) {
      const schema = post.requestBody.content['application/json'].schema;
      expect(schema.required, type).toEqual(['type', 'timestamp', 'data']);
      expect(schema.properties.type, type).toMatchObject({ const: type });
      expect(post.parameters.map((p: { name: string }) => p.name)).toEqual([
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
      ]);
    }
    const rotated =
      hooks['organization.jwt_secret_rotated']!.post.requestBody.content['application/json'].schema
        .properties.data.properties;
    expect(Object.keys(rotated).sort()).toEqual(['organizationId', 'previousJwtSecretExpiresAt']);
  });

  it('names the one credential a route takes as its security scheme', () => {
    const schemes = doc.components.securitySchemes;
    expect(Object.keys(schemes).sort()).toEqual(['apiKey', 'bearer', 'session']);
    for (const scheme of Object.values(schemes)) {
      expect(scheme).toMatchObject({ type: 'http', scheme: 'bearer' });
    }
    expect(doc.security).toEqual([{ bearer: [] }]);
    for (const [id, route] of Object.entries(routes) as [string, RouteDef][]) {
      const { security } = operation(route);
      if (route.auth === 'none') expect(security, id).toEqual([]);
      else if (route.credential) expect(security, id).toEqual([{ [route.credential]: [] }]);
      else expect(security, id).toBeUndefined(); // the document's: either credential
    }
  });

  it('gives the SSO operations a host-backend sample with @bridgekit/node', () => {
    for (const route of [routes.ssoExchange, routes.ssoBrowser]) {
      const samples = operation(route)['x-codeSamples'] as { label: string; source: string }[];
      const node = samples.find((s) => s.label === '@bridgekit/node');
      expect(node?.source).toMatch(/from '@bridgekit\/node'/);
      expect(node?.source).toContain('process.env.BRIDGEKIT_ORG_SECRET');
    }
  });

  it('gives the session-only operations a @bridgekit/client sample on the session token', () => {
    for (const [id, route] of Object.entries(routes) as [string, RouteDef][]) {
      if (route.credential !== 'session') continue;
      const samples = operation(route)['x-codeSamples'] as { label: string; source: string }[];
      const client = samples.find((s) => s.label === '@bridgekit/client');
      expect(client?.source, id).toMatch(/from '@bridgekit\/client'/);
      expect(client?.source, id).toContain('getSessionToken: () => sessionToken');
      expect(client?.source, id).toContain(`await bridge.${id}()`);
      expect(client?.source, id).not.toMatch(/apiKey/);
    }
  });

  it('shows a request example and an answer for the success and each error title', () => {
    for (const [id, route] of Object.entries(routes) as [string, RouteDef][]) {
      const op = operation(route);
      if (route.body) {
        expect(op.requestBody.content['application/json'].examples?.request, id).toBeDefined();
      }
      const responses = op.responses as Record<string, { content?: object; headers?: object }>;
      const success = responses[String(route.status)]!;
      const shown = Object.values(success.content ?? {}).some((m) => 'examples' in m);
      // A 204 (logout) answers nothing at all: no body, no header to show.
      const empty = route.status === 204;
      expect(shown || empty || Object.keys(success.headers ?? {}).length > 0, id).toBe(true);
      for (const title of route.errors) {
        const media = Object.values(responses[String(statusOf[title])]!.content ?? {});
        expect(
          media.some((m) => title in (m.examples ?? {})),
          `${id} ${title}`,
        ).toBe(true);
      }
    }
  });

  it('lists NotFound for every API route that names a record in its path', () => {
    const silent = (Object.entries(routes) as [string, RouteDef][])
      .filter(([, r]) => r.auth === 'bearer' && /\{\w+\}/.test(r.path))
      .filter(([, r]) => !r.errors.includes('NotFound'))
      .map(([id]) => id);
    expect(silent).toEqual([]);
  });

  it('gives every operation a unique operationId', () => {
    const ids = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>)
      .flatMap((ops) => Object.values(ops))
      .map((op) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('finds routes by walking the Express router', () => {
    expect(served).toContain('GET /api/public/organizations/{orgId}/members/{id}');
    expect(served).toContain('POST /api/public/organizations');
  });

  it('would notice a route added outside the route table', () => {
    const app = createApp(bridge.deps);
    app.get('/undocumented/:thing', (_req, res) => {
      res.end();
    });
    const walked = servedRoutes(
      (app as unknown as { router: { stack: RouterLayer[] } }).router.stack,
    );
    expect(walked).toContain('GET /undocumented/{thing}');
    expect(documented.has('GET /undocumented/{thing}')).toBe(false);
  });

  it('documents every route the app serves', () => {
    const undocumented = [...served].filter((r) => !documented.has(r));
    expect(undocumented).toEqual([]);
  });

  it('serves every route the document lists', () => {
    const unserved = [...documented].filter((r) => !served.has(r));
    expect(unserved).toEqual([]);
  });
});
