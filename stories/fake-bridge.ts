import type { ClientRouteId, FetchLike } from '@bridgekit/client';
import {
  codeOfTitle,
  ErrorBody,
  type ErrorCode,
  type ErrorTitle,
  type FieldCode,
  fieldCodeOf,
  routes,
  statusOf,
} from '@bridgekit/contract';

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface FakeRequest {
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
}

/** A fixed reply, a function of the request, or `pending` (never answers: loading states). */
export type Handler = Reply | ((request: FakeRequest) => Reply) | 'pending';
export type Handlers = Partial<Record<ClientRouteId, Handler>>;

export const ok = (data: unknown, status = 200): Reply => ({ status, body: { data } });

/** A refusal as the bridge sends it; `fields` maps each field to its code and message. */
export const fail = (
  title: ErrorTitle,
  detail: string,
  options: {
    code?: ErrorCode;
    fields?: Record<string, [FieldCode, string]>;
    params?: Record<string, string | number>;
  } = {},
): Reply => {
  const fields = Object.entries(options.fields ?? {});
  const error = {
    title,
    code: options.code ?? codeOfTitle[title],
    detail,
    ...(fields.length > 0
      ? {
          fieldErrors: Object.fromEntries(fields.map(([field, [, message]]) => [field, message])),
          fieldCodes: Object.fromEntries(fields.map(([field, [code]]) => [field, code])),
        }
      : {}),
    ...(options.params ? { params: options.params } : {}),
  };
  return { status: statusOf[title], body: { error } };
};

/** Cursor pagination over `items` by id, like the bridge. */
export const paginate =
  (items: Array<{ id: string }>) =>
  ({ query }: FakeRequest): Reply => {
    const limit = Number(query.get('limit') ?? 50);
    const cursor = query.get('cursor');
    const start = cursor ? items.findIndex((item) => item.id === cursor) + 1 : 0;
    const data = items.slice(start, start + limit);
    const hasMore = start + limit < items.length;
    return {
      status: 200,
      body: {
        data,
        pagination: { hasMore, nextCursor: hasMore ? (data.at(-1)?.id ?? null) : null },
      },
    };
  };

function matchPath(template: string, pathname: string): Record<string, string> | null {
  const names: string[] = [];
  const pattern = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  const match = new RegExp(`^${pattern}$`).exec(pathname);
  if (!match) return null;
  return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1] ?? '')]));
}

/**
 * A `fetch` for the client that answers from `handlers`. Request bodies are validated with
 * the contract (400 like the bridge) and replies with the route's response schema, so
 * stories cannot drift from the contract.
 */
export function fakeFetch(handlers: Handlers): FetchLike {
  return async (url, init) => {
    const { pathname, searchParams } = new URL(url, 'https://bridge.example');
    const method = (init.method ?? 'GET').toLowerCase();
    for (const [id, handler] of Object.entries(handlers) as Array<[ClientRouteId, Handler]>) {
      const route = routes[id];
      const params = route.method === method ? matchPath(route.path, pathname) : null;
      if (!params) continue;
      if (handler === 'pending') return new Promise<Response>(() => {});
      const body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
      let reply: Reply;
      const parsed = 'body' in route ? route.body.safeParse(body) : null;
      if (parsed && !parsed.success) {
        const fields: Record<string, [FieldCode, string]> = {};
        for (const issue of parsed.error.issues)
          fields[issue.path.join('.')] ??= [fieldCodeOf(issue), issue.message];
        reply = fail('ValidationError', 'The request body is invalid.', {
          code: 'validation_failed',
          fields,
        });
      } else {
        reply =
          typeof handler === 'function' ? handler({ params, query: searchParams, body }) : handler;
      }
      if (reply.status < 400) {
        if ('response' in route) route.response.parse(reply.body);
      } else ErrorBody.parse(reply.body);
      return new Response(JSON.stringify(reply.body), {
        status: reply.status,
        headers: {
          'content-type': 'application/json',
          'x-request-id': 'req_story',
          ...reply.headers,
        },
      });
    }
    const notFound = fail('NotFound', `No story handler for ${method.toUpperCase()} ${pathname}`);
    return new Response(JSON.stringify(notFound.body), { status: 404 });
  };
}
