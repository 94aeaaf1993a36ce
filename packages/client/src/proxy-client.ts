import { BridgeError } from './bridge-error';
import { createClient } from './create-client';
import type { ClientRouteId } from './endpoints';
import type { BridgeClient, ClientOptions, FetchLike } from './types';

/**
 * What `@bridgekit/node`'s `createProxyHandler` forwards by default: reads only. The one list,
 * shared by the handler and the browser's proxy client.
 */
export const PROXY_READ_ROUTES: readonly ClientRouteId[] = [
  'listOrganizations',
  'getOrganization',
  'listMembers',
  'getMember',
  'listDataSources',
  'getDataSource',
  'getDataSourceSchema',
];

export interface ProxyClientOptions {
  /** Where the host's backend mounts its proxy: `/bridge`, or a full URL. */
  baseUrl: string;
  /**
   * The routes that backend forwards: the same list as its `createProxyHandler({ allow })`.
   * Default `PROXY_READ_ROUTES` (the handler's default).
   */
  routes?: readonly ClientRouteId[] | undefined;
  fetch?: FetchLike | undefined;
  retry?: ClientOptions['retry'];
}

/** Route sets of the clients made by `createProxyClient`, read by `canCall`. */
const proxied = /* @__PURE__ */ new WeakMap<BridgeClient, ReadonlySet<ClientRouteId>>();

/**
 * The browser half of the API-key proxy: a client of the host's own backend, which adds its API
 * key and forwards `routes` to the bridge (`createProxyHandler` in `@bridgekit/node`). It sends
 * no token (the host's own cookie session is what that backend checks). A route outside
 * `routes` fails at once, without a request, with a 404 `route_not_found` BridgeError; the kit's
 * components ask `canCall` first and say what is not available instead of offering it.
 *
 * @example
 * // browser                                   // host backend (Express)
 * const client = createProxyClient({           // app.use('/bridge', createProxyHandler({
 *   baseUrl: '/bridge',                        //   baseUrl: BRIDGE_URL, apiKey: BRIDGE_API_KEY,
 * });                                          //   mountPath: '/bridge', authorize: isAdmin,
 * <BridgeProvider client={client}>…            // }));
 */
export function createProxyClient(options: ProxyClientOptions): BridgeClient {
  const routes = new Set(options.routes ?? PROXY_READ_ROUTES);
  const inner = createClient({
    baseUrl: options.baseUrl,
    getSessionToken: () => '',
    fetch: options.fetch,
    retry: options.retry,
  }) as unknown as Record<ClientRouteId, (input?: unknown) => Promise<unknown>>;
  const client: Record<string, (input?: unknown) => Promise<unknown>> = {};
  for (const id of Object.keys(inner) as ClientRouteId[]) {
    client[id] = routes.has(id) ? inner[id] : () => Promise.reject(notForwarded(id));
  }
  const result = client as unknown as BridgeClient;
  proxied.set(result, routes);
  return result;
}

const notForwarded = (id: ClientRouteId) =>
  new BridgeError({
    status: 404,
    title: 'NotFound',
    code: 'route_not_found',
    detail: `${id} is not forwarded by this proxy`,
  });

/**
 * Whether `client` can make the call at all: false only for a route a proxy client does not
 * forward. Any other client can try every route (the bridge decides).
 */
export const canCall = (client: BridgeClient, id: ClientRouteId): boolean =>
  proxied.get(client)?.has(id) ?? true;
