import { BridgeError } from './bridge-error';
import { type ClientRouteId, endpoints } from './endpoints';
import { parseRetryAfter, sleep } from './retry-after';
import type { BridgeClient, ClientOptions, FetchLike } from './types';

interface RawInput {
  params?: Record<string, unknown> | undefined;
  query?: Record<string, unknown> | undefined;
  body?: unknown;
  signal?: AbortSignal | undefined;
}

/**
 * A typed client with one method per route of the contract. Runs on any global
 * `fetch` (browsers, Node 20+); pass `fetch` to replace it.
 *
 * @example
 * const client = createClient({ baseUrl: 'https://bridge.example.com', getSessionToken });
 * const { data } = await client.getMember({ params: { orgId, id: memberId } });
 */
export function createClient(options: ClientOptions, fetch?: FetchLike): BridgeClient {
  // Resolved per call so that importing never touches globals.
  const doFetch: FetchLike = fetch ?? options.fetch ?? ((url, init) => globalThis.fetch(url, init));
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const maxRetries = options.retry?.maxRetries ?? 2;
  const maxDelayMs = options.retry?.maxDelayMs ?? 10_000;
  const { apiKey, getSessionToken } = options;

  async function call(id: ClientRouteId, input: RawInput = {}): Promise<unknown> {
    const [method, template, auth] = endpoints[id];
    const url = baseUrl + fillPath(template, input.params) + toQueryString(input.query);
    const body = input.body === undefined ? undefined : JSON.stringify(input.body);
    const { signal } = input;
    let forceRefresh = false;
    let refreshed = false;
    let retries = 0;

    for (;;) {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (body !== undefined) headers['content-type'] = 'application/json';
      if (auth === 'bearer') {
        const token = apiKey ?? (await getSessionToken?.({ forceRefresh }));
        if (token) headers.authorization = `Bearer ${token}`;
      }
      forceRefresh = false;

      let response: Response;
      try {
        response = await doFetch(url, {
          method: method.toUpperCase(),
          headers,
          ...(body === undefined ? {} : { body }),
          ...(signal ? { signal } : {}),
        });
      } catch (cause) {
        if (signal?.aborted) throw cause;
        throw new BridgeError(
          { status: 0, title: 'NetworkError', detail: 'The bridge could not be reached.' },
          { cause },
        );
      }

      // 204 No Content (logout) has no body to read.
      if (response.status === 204) return undefined;
      if (response.ok) return readJson(response);
      const error = await toBridgeError(response);

      // A session token can expire between calls: get a fresh one, once.
      if (response.status === 401 && auth === 'bearer' && getSessionToken && !refreshed) {
        refreshed = true;
        forceRefresh = true;
        continue;
      }
      if (method === 'get' && (response.status === 429 || response.status === 503)) {
        const delayMs = error.retryAfter === null ? 500 * 2 ** retries : error.retryAfter * 1000;
        // Retrying before Retry-After would only be refused again: give up instead.
        if (retries < maxRetries && delayMs <= maxDelayMs) {
          retries += 1;
          await sleep(delayMs, signal);
          continue;
        }
      }
      throw error;
    }
  }

  const client: Record<string, (input?: RawInput) => Promise<unknown>> = {};
  for (const id of Object.keys(endpoints) as ClientRouteId[]) {
    client[id] = (input) => call(id, input);
  }
  return client as unknown as BridgeClient;
}

function fillPath(template: string, params: Record<string, unknown> = {}): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === null || value === '') {
      throw new TypeError(`Missing path parameter "${name}"`);
    }
    return encodeURIComponent(String(value));
  });
}

function toQueryString(query: Record<string, unknown> = {}): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) search.append(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

async function readJson(response: Response): Promise<unknown> {
  try {
    return await response.json();
  } catch (cause) {
    throw new BridgeError(
      {
        status: response.status,
        title: 'HttpError',
        detail: 'The bridge sent a response that is not JSON.',
        requestId: response.headers.get('x-request-id'),
      },
      { cause },
    );
  }
}

const objectOr = <T>(value: unknown, known: boolean): T | undefined =>
  known && value && typeof value === 'object' ? (value as T) : undefined;

async function toBridgeError(response: Response): Promise<BridgeError> {
  const body = (await response.json().catch(() => null)) as {
    error?: Record<string, unknown> | undefined;
  } | null;
  const error = body?.error;
  const known = typeof error?.title === 'string' && typeof error.detail === 'string';
  return new BridgeError({
    status: response.status,
    title: known ? (error.title as BridgeError['title']) : 'HttpError',
    detail: known ? (error.detail as string) : `The bridge answered HTTP ${response.status}.`,
    code: known && typeof error.code === 'string' ? error.code : null,
    fieldErrors: objectOr(error?.fieldErrors, known),
    fieldCodes: objectOr(error?.fieldCodes, known),
    params: objectOr(error?.params, known),
    requestId: response.headers.get('x-request-id'),
    retryAfter: parseRetryAfter(response.headers.get('retry-after')),
  });
}
