import { type RouteDef, successContentTypes } from '@bridgekit/contract';
import type { ServedBridge, TestResponse } from '../../../../test/support/bridge';
import type { ExampleCall } from './scenario';
import type { Credentials } from './world';

/** The path of `route` with the call's parameters and query string. */
export function pathOf(route: RouteDef, call: ExampleCall): string {
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = call.params?.[name];
    if (value === undefined) throw new Error(`${route.path}: the call has no params.${name}`);
    return encodeURIComponent(value);
  });
  const query = new URLSearchParams(call.query ?? {}).toString();
  return query ? `${path}?${query}` : path;
}

/** Sends the call to `bridge` with the credential of its caller. */
export function send(
  bridge: ServedBridge,
  route: RouteDef,
  call: ExampleCall,
  credentials: Credentials,
): Promise<TestResponse> {
  const as = call.as ?? (route.auth === 'bearer' ? 'admin' : 'anonymous');
  return bridge.request(route.method.toUpperCase(), pathOf(route, call), {
    key: as === 'anonymous' ? undefined : credentials[as],
    body: call.body,
    rawBody: call.rawBody,
    headers: call.headers,
  });
}

/** The content type of an answer without its parameters (`; charset=utf-8`). */
export const mediaType = (res: TestResponse) =>
  res.headers.get('content-type')?.split(';')[0]?.trim();

/** Headers a redirect example shows. */
export function shownHeaders(route: RouteDef, res: TestResponse) {
  if (successContentTypes(route).length > 0) return undefined;
  const headers: Record<string, string> = {};
  for (const name of ['Location', 'Set-Cookie']) {
    const value = res.headers.get(name);
    if (value) headers[name] = value;
  }
  return headers;
}
