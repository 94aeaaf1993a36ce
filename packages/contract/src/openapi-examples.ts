import { curlSample, hostBackendSample, sessionClientSample } from './code-samples';
import type { ExampleResponse, RouteExamples } from './examples';
import type { RouteDef } from './routes';

/** A redirect's headers, with the recorded values as examples. */
export function successHeaders(recorded: ExampleResponse | undefined) {
  const headers: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(recorded?.headers ?? {})) {
    headers[name] = { schema: { type: 'string' }, example: value };
  }
  return headers;
}

/**
 * `x-codeSamples`: curl for every operation, `@bridgekit/node` for the SSO sign-in ones and
 * `@bridgekit/client` for the calls a session token makes (session, refresh, logout).
 */
export function operationExtras(
  routeId: string,
  route: RouteDef,
  recorded: RouteExamples | undefined,
): Record<string, unknown> {
  if (!recorded) return {};
  const samples = [curlSample(route, recorded.request)];
  const sdk = hostBackendSample(routeId, recorded.request) ?? sessionClientSample(routeId);
  if (sdk) samples.push(sdk);
  return { 'x-codeSamples': samples };
}
