import http from 'node:http';
import { ErrorBody, type RouteId, routes } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type TestBridge } from '../../../test/support/bridge';
import { claimsFor, createOrg, signHs256 } from '../sso/support';

// One rule for stray input on every route: an unknown query parameter, or a body where the
// route takes none, is a 400 naming it, before anything is carried out (auth included).

/** Routes the rule does not cover, and why. */
const EXEMPT: Partial<Record<RouteId, string>> = {
  ssoBrowser: 'documents the Basedash SDK browser parameters (any extra one is ignored)',
  embedPage: 'carries the display options the sign-in passes on',
  embedAsset: 'static files, cached by URL',
};

let bridge: TestBridge;
let admin: { key: string };
let org: { id: string; jwtSecret: string };
let memberId: string;
let dataSourceId: string;
let session: string;

const ids = () => ({ orgId: org.id, id: memberId, slug: 'x', file: 'docs.js' });

/** The path of a route with the test's records (`{id}` is a data source under /data-sources). */
function pathOf(id: RouteId): string {
  const route = routes[id];
  const values: Record<string, string> = {
    ...ids(),
    id: route.path.includes('/data-sources/') ? dataSourceId : memberId,
  };
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => values[name]!);
}

const credentialOf = (id: RouteId) => {
  const route = routes[id];
  if (route.auth !== 'bearer') return undefined;
  return 'credential' in route && route.credential === 'session' ? session : admin.key;
};

beforeAll(async () => {
  bridge = await startBridge('sqlite');
  admin = await bridge.newUser();
  org = await createOrg(bridge, admin.key, { embedAllowedOrigins: ['https://app.example.com'] });
  const added = await bridge.request('POST', `/api/public/organizations/${org.id}/members`, {
    key: admin.key,
    body: { email: 'stray-member@example.com', role: 'MEMBER' },
  });
  memberId = added.body.data.id;
  const created = await bridge.request('POST', `/api/public/organizations/${org.id}/data-sources`, {
    key: admin.key,
    body: {
      displayName: 'Stray',
      dialect: 'POSTGRES',
      host: 'db.example.com',
      username: 'u',
      databaseName: 'd',
    },
  });
  dataSourceId = created.body.data.id;
  const jwt = await signHs256(claimsFor(org.id), org.jwtSecret);
  const exchanged = await bridge.request('POST', '/api/sso/jwt', { body: { jwt } });
  session = exchanged.body.data.sessionToken;
});
afterAll(() => bridge?.stop());

/** A request with a body whatever its method (fetch sends none with GET). */
function withBody(method: string, path: string, body: string, key?: string) {
  return new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    const req = http.request(`${bridge.url}${path}`, {
      method,
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        ...(key ? { authorization: `Bearer ${key}` } : {}),
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text && JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Everything the refused requests could have changed, read back through the API. */
async function state() {
  const read = (path: string) => bridge.request('GET', path, { key: admin.key });
  const base = `/api/public/organizations/${org.id}`;
  const [organization, member, dataSource, who] = await Promise.all([
    read(`${base}?include=jwtSecret`),
    read(`${base}/members/${memberId}`),
    read(`${base}/data-sources/${dataSourceId}`),
    bridge.request('GET', '/api/sso/session', { key: session }),
  ]);
  return {
    organization: organization.body.data,
    member: member.body.data,
    dataSource: dataSource.body.data,
    session: who.status,
  };
}

const covered = (Object.keys(routes) as RouteId[]).filter((id) => !EXEMPT[id]);

describe('stray input', () => {
  it('covers every route but the documented exceptions', () => {
    expect(covered.length + Object.keys(EXEMPT).length).toBe(Object.keys(routes).length);
    for (const id of ['health', 'live', 'ready', 'getMember', 'rotateJwtSecret'] as RouteId[])
      expect(covered).toContain(id);
  });

  it.each(covered)(
    '%s: an unknown query parameter is a 400 naming it, and changes nothing',
    async (id) => {
      const before = await state();
      const route = routes[id];
      const res = await bridge.request(route.method.toUpperCase(), `${pathOf(id)}?x=1`, {
        key: credentialOf(id),
      });
      expect(res.status).toBe(400);
      expect(ErrorBody.parse(res.body).error).toEqual({
        title: 'ValidationError',
        code: 'unknown_parameter',
        detail: 'Unknown query parameter: x',
        fieldErrors: { x: 'Unknown query parameter' },
        fieldCodes: { x: 'unknown_field' },
      });
      expect(await state()).toEqual(before);
    },
  );

  it('refuses an unknown query parameter before authentication', async () => {
    const res = await bridge.request('DELETE', `/api/public/organizations/${org.id}?force=1`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('unknown_parameter');
    expect(res.body.error.fieldErrors).toEqual({ force: 'Unknown query parameter' });
  });

  it('names every unknown parameter and keeps the declared ones', async () => {
    const res = await bridge.request(
      'GET',
      `/api/public/organizations?limit=2&include=jwtSecret&b=1&a=2`,
      { key: admin.key },
    );
    expect(res.status).toBe(400);
    expect(res.body.error.fieldErrors).toEqual({
      b: 'Unknown query parameter',
      a: 'Unknown query parameter',
    });
  });

  const bodiless = covered.filter((id) => !('body' in routes[id]));
  it.each(bodiless)('%s: a body is a 400 naming it, and changes nothing', async (id) => {
    const before = await state();
    const route = routes[id];
    const res = await withBody(route.method.toUpperCase(), pathOf(id), '{"x":1}', credentialOf(id));
    expect(res.status).toBe(400);
    expect(ErrorBody.parse(res.body).error).toEqual({
      title: 'ValidationError',
      code: 'unexpected_body',
      detail: `${route.method.toUpperCase()} ${route.path} takes no request body`,
      fieldErrors: { body: 'This operation takes no body' },
      fieldCodes: { body: 'unexpected_body' },
    });
    expect(await state()).toEqual(before);
  });

  it('takes a bodiless request with Content-Length: 0 as having no body', async () => {
    const res = await withBody('GET', '/livez', '');
    expect(res.status).toBe(200);
  });

  it('keeps accepting the SDK browser parameters on GET /api/sso/jwt', async () => {
    const jwt = await signHs256(claimsFor(org.id), org.jwtSecret);
    const res = await bridge.request(
      'GET',
      `/api/sso/jwt?jwt=${jwt}&theme=dark&hide_org_name=true&sdk_extra=1`,
      { headers: { origin: 'https://app.example.com' } },
    );
    // Full embed is off for this organization: the refusal is about that, not the parameters.
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('full_embed_disabled');
  });
});

describe('cursors', () => {
  const lists = [
    ['listOrganizations', '/api/public/organizations'],
    ['listMembers', () => `/api/public/organizations/${org.id}/members`],
    ['listDataSources', () => `/api/public/organizations/${org.id}/data-sources`],
    [
      'getDataSourceSchema',
      () => `/api/public/organizations/${org.id}/data-sources/${dataSourceId}/schema`,
    ],
  ] as const;
  it.each(lists)('%s?cursor=nope is a 400 invalid_cursor naming cursor', async (_, path) => {
    const url = typeof path === 'string' ? path : path();
    const res = await bridge.request('GET', `${url}?cursor=nope`, { key: admin.key });
    expect(res.status).toBe(400);
    expect(ErrorBody.parse(res.body).error).toEqual({
      title: 'ValidationError',
      code: 'invalid_cursor',
      detail: 'Query string is invalid: cursor',
      fieldErrors: { cursor: 'Must be a nextCursor from a previous page' },
      fieldCodes: { cursor: 'invalid_format' },
    });
  });

  it('takes the id of a record of another kind as no cursor of this list', async () => {
    const res = await bridge.request('GET', `/api/public/organizations?cursor=${memberId}`, {
      key: admin.key,
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_cursor');
  });

  it('still pages with a cursor the list handed out', async () => {
    const first = await bridge.request(
      'GET',
      `/api/public/organizations/${org.id}/members?limit=1`,
      { key: admin.key },
    );
    const next = first.body.pagination.nextCursor;
    const res = await bridge.request(
      'GET',
      `/api/public/organizations/${org.id}/members?limit=1&cursor=${next}`,
      { key: admin.key },
    );
    expect(res.status).toBe(200);
    expect(res.body.data[0].id).not.toBe(first.body.data[0].id);
  });
});
