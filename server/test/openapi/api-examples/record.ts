import {
  type ApiExamples,
  type ErrorTitle,
  type ExampleResponse,
  errorContentType,
  type RouteDef,
  type RouteExamples,
  type RouteId,
  routes,
  statusOf,
  successContentTypes,
} from '@bridgekit/contract';
import type { TestResponse } from '../../../../test/support/bridge';
import { type ErrorProducer, genericError, type RunContext } from './generic-errors';
import type { ExampleCall, Scenarios } from './scenario';
import { mediaType, send, shownHeaders } from './send';

// Files are long; the document shows their start.
const MAX_TEXT = 2000;
const SHOWN_TEXT = 400;

const HOW_TO =
  'add it to the scenarios in server/test/openapi/api-examples/ (CONTRIBUTING.md: "Adding a route"), then run `npm run docs:examples`';

/** Where a route's examples come from, so a missing one can be named. */
export function missingExamples(scenarios: Scenarios): string[] {
  const missing: string[] = [];
  for (const [id, route] of Object.entries(routes) as [RouteId, RouteDef][]) {
    const scenario = scenarios[id];
    if (!scenario) {
      missing.push(
        `${id} (${route.method.toUpperCase()} ${route.path}) has no scenario: ${HOW_TO}`,
      );
      continue;
    }
    for (const title of route.errors) {
      if (!scenario.errors?.[title] && !genericError(title, route)) {
        missing.push(
          `${id} can answer ${title} but its scenario has no errors.${title}: ${HOW_TO}`,
        );
      }
    }
  }
  return missing;
}

function toExample(summary: string, res: TestResponse, abridge?: (b: unknown) => unknown) {
  const example: ExampleResponse = { summary, status: res.status };
  // A redirect's body is Express's courtesy text; its headers are the answer.
  if (res.status >= 300 && res.status < 400) return example;
  const contentType = mediaType(res);
  if (contentType) example.contentType = contentType;
  if (contentType === 'application/json') {
    example.body = abridge ? abridge(res.body) : res.body;
  } else if (res.text) {
    example.body =
      res.text.length > MAX_TEXT
        ? `${res.text.slice(0, SHOWN_TEXT)}\n… (the first ${SHOWN_TEXT} of ${res.text.length} characters)`
        : res.text;
  }
  return example;
}

/** Why an answer can't be a route's success example, if it can't. */
function successProblem(id: string, route: RouteDef, res: TestResponse): string | undefined {
  const types = successContentTypes(route);
  const type = mediaType(res);
  if (res.status !== route.status || (types.length > 0 && !types.includes(type ?? ''))) {
    return `${id}: the success scenario got ${res.status} ${type}: ${res.text.slice(0, 300)}`;
  }
  const parsed = type === 'application/json' ? route.response?.safeParse(res.body) : undefined;
  if (parsed && !parsed.success)
    return `${id}: the answer does not match the route's response schema: ${parsed.error.message}`;
  return undefined;
}

function errorProblem(id: string, route: RouteDef, title: ErrorTitle, res: TestResponse) {
  const type = mediaType(res);
  const answered = type === 'application/json' ? res.body?.error?.title : title;
  if (
    res.status === statusOf[title] &&
    type === errorContentType(route, statusOf[title]) &&
    answered === title
  ) {
    return undefined;
  }
  return `${id}: the ${title} scenario got ${res.status} ${type}: ${res.text.slice(0, 300)}`;
}

const requestOf = (call: ExampleCall) => {
  const { params, query, body, headers } = call;
  return JSON.parse(JSON.stringify({ params, query, body, headers })) as RouteExamples['request'];
};

/** Runs every scenario against the bridges, in route-table order; returns what it got. */
export async function recordExamples(
  scenarios: Scenarios,
  context: Omit<RunContext, 'route' | 'scenario'>,
): Promise<{ examples: ApiExamples; problems: string[] }> {
  const examples: ApiExamples = {};
  const problems: string[] = [];
  for (const [id, route] of Object.entries(routes) as [RouteId, RouteDef][]) {
    const scenario = scenarios[id];
    if (!scenario) continue;
    const ctx: RunContext = { ...context, route, scenario };
    const call = await scenario.call(ctx.world);
    const res = await send(ctx.bridges.main, route, call, ctx.credentials);
    const problem = successProblem(id, route, res);
    if (problem) problems.push(problem);
    const success = toExample(scenario.summary ?? 'Success', res, scenario.abridge);
    const headers = shownHeaders(route, res);
    if (headers) success.headers = headers;
    const errors: RouteExamples['errors'] = {};
    for (const title of route.errors) {
      const own = scenario.errors?.[title];
      const producer: ErrorProducer | undefined = own
        ? {
            summary: own.summary,
            answer: async (c) =>
              send(c.bridges.main, route, await own.call(c.world), c.credentials),
          }
        : genericError(title, route);
      if (!producer) continue;
      const answer = await producer.answer(ctx);
      const wrong = errorProblem(id, route, title, answer);
      if (wrong) problems.push(wrong);
      errors[title] = toExample(producer.summary, answer);
    }
    examples[id] = { request: requestOf(call), success, errors };
  }
  return { examples, problems };
}
