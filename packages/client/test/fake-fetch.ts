import type { FetchLike } from '../src';

export interface Call {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
}

export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });

/** A `fetch` that answers from a queue and records what it was asked. */
export function fakeFetch(...responses: Array<Response | (() => Response)>) {
  const calls: Call[] = [];
  const fetch: FetchLike = async (url, init) => {
    calls.push({
      url,
      method: init.method ?? 'GET',
      headers: init.headers as Record<string, string>,
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
    });
    const next = responses.shift();
    if (!next) throw new Error(`Unexpected request ${init.method} ${url}`);
    return typeof next === 'function' ? next() : next;
  };
  return { fetch, calls };
}
