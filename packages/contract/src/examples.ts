import type { ErrorTitle } from './common';

/** A request as the examples show it: the API key is never part of it. */
export interface ExampleRequest {
  params?: Record<string, string>;
  query?: Record<string, string>;
  /** A JSON body. */
  body?: unknown;
  /** Headers a route needs besides `Authorization` (a cookie, `Referer`, …). */
  headers?: Record<string, string>;
}

/** One answer of the bridge, recorded from a real request (server/test/openapi/api-examples). */
export interface ExampleResponse {
  /** What was asked, in a few words: shown beside the example. */
  summary: string;
  status: number;
  contentType?: string;
  /** The JSON body, or the text of an HTML page or file (long files are cut short). */
  body?: unknown;
  /** Headers worth showing (a redirect's `Location`, a `Set-Cookie`). */
  headers?: Record<string, string>;
}

export interface RouteExamples {
  request: ExampleRequest;
  success: ExampleResponse;
  errors: Partial<Record<ErrorTitle, ExampleResponse>>;
}

/** Recorded examples by route id; `npm run docs:examples` writes the file. */
export type ApiExamples = Partial<Record<string, RouteExamples>>;

/** The committed examples, loaded on first use (the bridge keeps them out of its start-up). */
export const loadApiExamples = async (): Promise<ApiExamples> =>
  (await import('./examples.json')).default as ApiExamples;
