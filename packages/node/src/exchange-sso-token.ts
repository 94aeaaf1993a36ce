import { dataOf, ErrorBody, type FieldErrors, SsoSession } from '@bridgekit/contract';

const SessionResponse = dataOf(SsoSession);

/** An error answer of `/api/sso/jwt`; `title` is `UnexpectedResponse` when it was not an error envelope. */
export class BridgeSsoError extends Error {
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly requestId: string | null;
  readonly fieldErrors: FieldErrors | undefined;

  constructor(options: {
    status: number;
    title: string;
    detail: string;
    requestId: string | null;
    fieldErrors?: FieldErrors;
  }) {
    super(`${options.title}: ${options.detail}`);
    this.name = 'BridgeSsoError';
    this.status = options.status;
    this.title = options.title;
    this.detail = options.detail;
    this.requestId = options.requestId;
    this.fieldErrors = options.fieldErrors;
  }
}

export interface ExchangeSsoTokenOptions {
  /** The bridge's base address, e.g. `https://bridge.example.com`; a path prefix is kept. */
  baseUrl: string;
  /** A token from `createSsoToken`. */
  jwt: string;
  /** Defaults to the global `fetch`. */
  fetch?: typeof globalThis.fetch;
  signal?: AbortSignal;
}

/**
 * Exchanges an SSO token for an embed session (`POST {baseUrl}/api/sso/jwt`): a bearer
 * token for that one organization, valid 15 minutes. Throws `BridgeSsoError` on an error
 * answer; network failures reject with fetch's own error.
 *
 * @example
 * const session = await exchangeSsoToken({ baseUrl: 'https://bridge.example.com', jwt });
 * res.json({ sessionToken: session.sessionToken, expiresAt: session.expiresAt });
 */
export async function exchangeSsoToken(options: ExchangeSsoTokenOptions): Promise<SsoSession> {
  const { baseUrl, jwt, fetch: doFetch = globalThis.fetch, signal } = options;
  const url = `${baseUrl.replace(/\/+$/, '')}/api/sso/jwt`;
  const response = await doFetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ jwt }),
    ...(signal ? { signal } : {}),
  });
  const requestId = response.headers.get('x-request-id');
  const body: unknown = await response.json().catch(() => undefined);

  if (response.ok) {
    const parsed = SessionResponse.safeParse(body);
    if (parsed.success) return parsed.data.data;
    throw new BridgeSsoError({
      status: response.status,
      title: 'UnexpectedResponse',
      detail: 'The bridge answered with a body that is not an SSO session',
      requestId,
    });
  }

  const error = ErrorBody.safeParse(body);
  if (error.success) {
    const { title, detail, fieldErrors } = error.data.error;
    throw new BridgeSsoError({
      status: response.status,
      title,
      detail,
      requestId,
      ...(fieldErrors ? { fieldErrors } : {}),
    });
  }
  throw new BridgeSsoError({
    status: response.status,
    title: 'UnexpectedResponse',
    detail: `The bridge answered HTTP ${response.status} without an error envelope`,
    requestId,
  });
}
