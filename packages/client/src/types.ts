import type { Routes } from '@bridgekit/contract';
import type { z } from 'zod';
import type { ClientRouteId } from './endpoints';

/** Per-call options besides the route's inputs. */
export interface CallOptions {
  /** Aborts the request and any retry wait. */
  signal?: AbortSignal | undefined;
}

type ParamsIn<R> = R extends { params: infer P extends z.ZodType }
  ? { params: z.input<P> }
  : unknown;
type QueryIn<R> = R extends { query: infer Q extends z.ZodType }
  ? { query?: z.input<Q> | undefined }
  : unknown;
// A body the schema lets be absent (rotating the jwtSecret) may be left out.
type BodyIn<R> = R extends { body: infer B extends z.ZodType }
  ? undefined extends z.input<B>
    ? { body?: z.input<B> }
    : { body: z.input<B> }
  : unknown;

/** What a call takes: `params`, `query` and `body` typed by the contract's input schemas. */
export type RouteInput<K extends ClientRouteId> = ParamsIn<Routes[K]> &
  QueryIn<Routes[K]> &
  BodyIn<Routes[K]> &
  CallOptions;

/** What a call resolves to: the parsed type of the route's response schema (void for 204). */
export type RouteOutput<K extends ClientRouteId> = Routes[K] extends {
  response: infer S extends z.ZodType;
}
  ? z.infer<S>
  : undefined;

type Method<K extends ClientRouteId> =
  // Routes without required inputs can be called without an argument.
  Partial<RouteInput<K>> extends RouteInput<K>
    ? (input?: RouteInput<K>) => Promise<RouteOutput<K>>
    : (input: RouteInput<K>) => Promise<RouteOutput<K>>;

/** One method per route of the contract. */
export type BridgeClient = { readonly [K in ClientRouteId]: Method<K> };

export interface GetSessionTokenOptions {
  /** True after the bridge rejected the previous token: do not return a cached one. */
  forceRefresh: boolean;
}

export type GetSessionToken = (options: GetSessionTokenOptions) => string | Promise<string>;

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

interface BaseOptions {
  /** Where the bridge is served, e.g. `https://bridge.example.com` (`''` for same origin). */
  baseUrl: string;
  /** Replaces the global `fetch` (tests, Storybook, instrumentation). */
  fetch?: FetchLike | undefined;
  /** Retries of GETs answered 429/503. Defaults: 2 retries, waits up to 10 000 ms. */
  retry?: { maxRetries?: number | undefined; maxDelayMs?: number | undefined } | undefined;
}

/** An API key (server side only) or an embed session (browsers). */
export type ClientOptions = BaseOptions &
  (
    | { apiKey: string; getSessionToken?: undefined }
    | { getSessionToken: GetSessionToken; apiKey?: undefined }
  );
