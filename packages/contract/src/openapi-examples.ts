import { curlSample, hostBackendSample } from './code-samples';
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

/** `x-codeSamples`: curl for every operation, `@bridgekit/node` for the SSO ones. */
export function operationExtras(
  routeId: string,
  route: RouteDef,
  recorded: RouteExamples | undefined,
): Record<string, unknown> {
  if (!recorded) return {};
  const samples = [curlSample(route, recorded.request)];
  const node = hostBackendSample(routeId, recorded.request);
  if (node) samples.push(node);
  return { 'x-codeSamples': samples };
}
