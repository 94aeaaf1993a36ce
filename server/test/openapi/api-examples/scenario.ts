import type { ErrorTitle, RouteId } from '@bridgekit/contract';
import type { World } from './world';

/** Who sends a request: a key of the world's users, its embed session, or nobody. */
export type Caller = 'admin' | 'member' | 'outsider' | 'session' | 'anonymous';

/** One request to the bridge, as a scenario describes it. */
export interface ExampleCall {
  params?: Record<string, string>;
  query?: Record<string, string>;
  /** A JSON body (sent with `Content-Type: application/json`). */
  body?: unknown;
  /** A body sent as is (malformed JSON, a huge body); never shown as the request example. */
  rawBody?: string;
  headers?: Record<string, string>;
  /** Default: `admin` on routes that need a key, `anonymous` on open ones. */
  as?: Caller;
}

export type CallOf = (world: World) => ExampleCall | Promise<ExampleCall>;

export interface ErrorScenario {
  /** What the request does wrong, in a few words (shown beside the example). */
  summary: string;
  call: CallOf;
}

/**
 * How to make a route answer: `call` is the request of the success example (and of the
 * request example); `errors` holds one request per error title of the route. Titles any route
 * answers alike (401 without a key, 413, 415, 429, 503) come from generic-errors.ts unless
 * listed here.
 */
export interface Scenario {
  /** Shown beside the success example; default "Success". */
  summary?: string;
  call: CallOf;
  errors?: Partial<Record<ErrorTitle, ErrorScenario>>;
  /** Shortens a success body too long to show whole (the OpenAPI document itself). */
  abridge?: (body: unknown) => unknown;
}

/** Scenarios by route id: one file per resource, each a `Scenarios` object. */
export type Scenarios = Partial<Record<RouteId, Scenario>>;
