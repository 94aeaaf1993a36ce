import type { ErrorTitle, RouteDef } from '@bridgekit/contract';
import type { ServedBridge, TestResponse } from '../../../../test/support/bridge';
import type { ExampleCall, Scenario } from './scenario';
import { send } from './send';
import type { Credentials, World } from './world';

/** The bridges the examples are recorded on; all share the main bridge's data but `down`. */
export interface ExampleBridges {
  main: ServedBridge;
  /** The same data, every rate limit at 1 per minute. */
  throttled: ServedBridge;
  /** A bridge whose PostgreSQL has stopped. */
  down: ServedBridge;
}

export interface RunContext {
  bridges: ExampleBridges;
  credentials: Credentials;
  world: World;
  route: RouteDef;
  scenario: Scenario;
}

/** How one error example is produced: a summary and the answer of the bridge. */
export interface ErrorProducer {
  summary: string;
  answer(ctx: RunContext): Promise<TestResponse>;
}

const successCall = async (ctx: RunContext): Promise<ExampleCall> => ctx.scenario.call(ctx.world);

const sendMain = (ctx: RunContext, call: ExampleCall) =>
  send(ctx.bridges.main, ctx.route, call, ctx.credentials);

/**
 * The errors every route answers the same way, made from the route's own success request;
 * a scenario that lists the title itself wins.
 */
export function genericError(title: ErrorTitle, route: RouteDef): ErrorProducer | undefined {
  switch (title) {
    case 'Unauthorized':
      if (route.auth !== 'bearer') return undefined;
      return {
        summary: 'Without an API key',
        answer: async (ctx) => sendMain(ctx, { ...(await successCall(ctx)), as: 'anonymous' }),
      };
    case 'PayloadTooLarge':
      if (!route.body) return undefined;
      return {
        summary: 'A body over the size limit (BRIDGE_BODY_LIMIT_BYTES, 100 kB by default)',
        answer: async (ctx) => {
          const padding = 'x'.repeat(ctx.bridges.main.deps.config.bodyLimitBytes);
          const call = await successCall(ctx);
          return sendMain(ctx, {
            ...call,
            body: undefined,
            rawBody: JSON.stringify({ ...(call.body as object), padding }),
            headers: { ...call.headers, 'content-type': 'application/json' },
          });
        },
      };
    case 'UnsupportedMediaType':
      if (!route.body) return undefined;
      return {
        summary: 'A body sent without Content-Type: application/json',
        answer: async (ctx) => {
          const call = await successCall(ctx);
          return sendMain(ctx, {
            ...call,
            body: undefined,
            rawBody: JSON.stringify(call.body),
            headers: { ...call.headers, 'content-type': 'text/plain' },
          });
        },
      };
    case 'ValidationError':
      return {
        summary: 'A query parameter the operation does not declare',
        answer: async (ctx) => {
          const call = await successCall(ctx);
          return sendMain(ctx, { ...call, query: { ...call.query, x: '1' } });
        },
      };
    case 'Forbidden':
      if (route.auth !== 'bearer') return undefined;
      return {
        summary: 'From a browser origin the organization does not allow',
        answer: async (ctx) => {
          const call = await successCall(ctx);
          return sendMain(ctx, {
            ...call,
            headers: { ...call.headers, origin: 'https://elsewhere.example' },
          });
        },
      };
    case 'TooManyRequests':
      return {
        summary: 'Over the rate limit (one request a minute here, to show the answer)',
        answer: async (ctx) => {
          const { throttled } = ctx.bridges;
          await send(throttled, ctx.route, await successCall(ctx), ctx.credentials);
          return send(throttled, ctx.route, await successCall(ctx), ctx.credentials);
        },
      };
    case 'ServiceUnavailable':
      return {
        summary: 'While the store (PostgreSQL here) is unreachable',
        answer: async (ctx) =>
          send(ctx.bridges.down, ctx.route, await successCall(ctx), ctx.credentials),
      };
    default:
      return undefined;
  }
}
