import {
  buildOpenApiDocument,
  type ErrorTitle,
  errorCodesByStatus,
  loadApiExamples,
  ROUTE_ERRORS,
  type RouteId,
  routes,
  statusOf,
  TITLE_OF_CODE,
} from '@bridgekit/contract';
import { describe, expect, it } from 'vitest';
import { operationOf, undeclaredError } from '../../../test/support/declared-errors';

// ROUTE_ERRORS is the one list of what each operation can answer: the OpenAPI document
// declares exactly it, and the recorded answers of the bridge stay inside it. The Prism test
// (server/test/openapi/prism.test.ts) checks every answer of a whole run against the document.

// biome-ignore lint/suspicious/noExplicitAny: the test walks the generated JSON document.
type Json = Record<string, any>;

const ids = Object.keys(routes) as RouteId[];
const doc = buildOpenApiDocument() as Json;
const operation = (id: RouteId): Json => {
  const route = routes[id];
  return doc.paths[route.path][route.method];
};
/** The schema of a JSON error answer, its component followed. */
const errorSchema = (id: RouteId, status: number): Json | undefined => {
  const schema = operation(id).responses[String(status)]?.content?.['application/json']?.schema;
  if (!schema?.$ref) return schema;
  return doc.components.schemas[schema.$ref.split('/').pop()];
};

const READS: RouteId[] = [
  'listOrganizations',
  'getOrganization',
  'listMembers',
  'getMember',
  'listDataSources',
  'getDataSource',
  'getDataSourceSchema',
];

describe('per-operation errors', () => {
  it('gives every code a title', () => {
    for (const [code, title] of Object.entries(TITLE_OF_CODE))
      expect(statusOf[title], code).toBeGreaterThanOrEqual(400);
  });

  it.each(ids)('%s: the route table lists the titles of its codes', (id) => {
    const titles = [...errorCodesByStatus(id, statusOf).values()].flatMap((e) => e.titles);
    expect(new Set(titles)).toEqual(new Set<ErrorTitle>([...routes[id].errors, 'InternalError']));
  });

  it.each(ids)('%s: the document declares exactly its statuses and codes', (id) => {
    const byStatus = errorCodesByStatus(id, statusOf);
    const declared = Object.keys(operation(id).responses)
      .map(Number)
      .filter((s) => s >= 400);
    expect(declared).toEqual([...byStatus.keys()]);
    for (const [status, { titles, codes }] of byStatus) {
      const schema = errorSchema(id, status);
      if (!schema) {
        // A page's own 404 is a page.
        expect(operation(id).responses[status].content['text/html']).toBeDefined();
        continue;
      }
      const error = schema.properties.error;
      expect(error.properties.code.enum.sort()).toEqual([...codes].sort());
      expect(error.properties.title.enum.sort()).toEqual([...titles].sort());
      expect(error.required).toEqual(['title', 'code', 'detail']);
    }
  });

  it.each(READS)('%s declares 403 origin_not_allowed', (id) => {
    expect(errorSchema(id, 403)?.properties.error.properties.code.enum).toContain(
      'origin_not_allowed',
    );
  });

  it('declares 503 store_unavailable wherever the store is read', () => {
    const open: RouteId[] = ['openApi', 'docs', 'docsAsset', 'live', 'embedAsset'];
    for (const id of ids.filter((i) => !open.includes(i))) {
      expect(errorSchema(id, 503)?.properties.error.properties.code.enum, id).toContain(
        'store_unavailable',
      );
    }
  });

  it("keeps every recorded answer of the bridge inside its operation's codes", async () => {
    const examples = await loadApiExamples();
    let checked = 0;
    for (const id of ids) {
      for (const [title, example] of Object.entries(examples[id]?.errors ?? {})) {
        const code = (example.body as Json | undefined)?.error?.code;
        if (typeof code !== 'string') continue;
        const status = statusOf[title as ErrorTitle];
        expect(ROUTE_ERRORS[id], `${id} ${status}`).toContain(code);
        expect(errorSchema(id, status)?.properties.error.properties.code.enum).toContain(code);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(150);
  });

  it('keeps the error schemas shared: a few dozen components, not one per operation', () => {
    const names = Object.keys(doc.components.schemas).filter((n) => n.includes('Error'));
    expect(names.length).toBeLessThan(60);
    expect(JSON.stringify(doc).length).toBeLessThan(250_000);
  });

  it('has every server test check each error answer against it (support/declared-errors.ts)', () => {
    const member = '/api/public/organizations/org_1/members/mem_1';
    expect(operationOf('GET', `${member}?x=1`)).toBe('getMember');
    expect(operationOf('POST', '/api/public/organizations/org_1/data-sources/verify')).toBe(
      'verifyDataSource',
    );
    expect(operationOf('PUT', member)).toBeUndefined();
    const answer = (code: string) => ({ error: { code } });
    expect(undeclaredError('GET', member, 403, answer('origin_not_allowed'))).toBeUndefined();
    expect(undeclaredError('GET', member, 409, answer('slug_taken'))).toBe(
      'getMember answered 409 slug_taken, which route-errors.ts does not declare for it',
    );
    expect(undeclaredError('GET', member, 400, answer('member_not_found'))).toBe(
      'getMember answered member_not_found with 400, not 404',
    );
    expect(undeclaredError('GET', '/no/route', 404, answer('route_not_found'))).toBeUndefined();
  });
});
