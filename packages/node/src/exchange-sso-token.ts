import { BridgeError, createClient, isBridgeError } from '@bridgekit/client';
import { dataOf, SsoSession } from '@bridgekit/contract';

const SessionResponse = dataOf(SsoSession);

export interface ExchangeSsoTokenOptions {
  /** The bridge's base address, e.g. `https://bridge.example.com`; a path prefix is kept. */
  baseUrl: string;
  /** A token from `createSsoToken`. */
  jwt: string;
  /** Defaults to the global `fetch`. */
  fetch?: typeof globalThis.fetch | undefined;
  signal?: AbortSignal | undefined;
}

const NOT_A_SESSION = 'The bridge answered with a body that is not an SSO session';
const notAnError = (status: number) =>
  `The bridge answered HTTP ${status} without an error envelope`;

/** An answer that is neither an SSO session nor the bridge's error envelope (a proxy's page, say). */
function unexpected(response: Response | undefined, detail: string, cause?: unknown) {
  return new BridgeError(
    {
      status: response?.status ?? 0,
      title: 'UnexpectedResponse',
      detail,
      requestId: response?.headers.get('x-request-id') ?? null,
    },
    { cause },
  );
}

/**
 * Exchanges an SSO token for an embed session (`POST {baseUrl}/api/sso/jwt`, the client's
 * `ssoExchange`): a bearer token for that one organization, valid 15 minutes. Every failure
 * is a `BridgeError`: the bridge's error answer as it came, `UnexpectedResponse` for an answer
 * that is not the bridge's, and `NetworkError` when none came. An abort rethrows the signal's
 * reason.
 *
 * @example
 * const session = await exchangeSsoToken({ baseUrl: 'https://bridge.example.com', jwt });
 * res.json({ sessionToken: session.sessionToken, expiresAt: session.expiresAt });
 */
export async function exchangeSsoToken(options: ExchangeSsoTokenOptions): Promise<SsoSession> {
  const { baseUrl, jwt, fetch: doFetch = globalThis.fetch, signal } = options;
  let response: Response | undefined;
  const client = createClient({
    baseUrl,
    // ssoExchange sends no Authorization header, so no token is ever asked for.
    getSessionToken: () => '',
    fetch: async (url, init) => {
      response = await doFetch(url, init);
      return response;
    },
  });

  let body: unknown;
  try {
    body = await client.ssoExchange({ body: { jwt }, ...(signal ? { signal } : {}) });
  } catch (error) {
    // The client's HttpError: an answer it could not read as JSON or as the error envelope.
    if (!isBridgeError(error) || error.title !== 'HttpError') throw error;
    throw unexpected(response, response?.ok ? NOT_A_SESSION : notAnError(error.status), error);
  }
  const parsed = SessionResponse.safeParse(body);
  if (parsed.success) return parsed.data.data;
  throw unexpected(response, NOT_A_SESSION);
}

/**
 * The former name of `BridgeError`, the class `exchangeSsoToken` throws.
 * @deprecated Use `BridgeError`; this alias will be removed in a later version.
 */
export const BridgeSsoError = BridgeError;
/** @deprecated Use `BridgeError`. */
export type BridgeSsoError = BridgeError;
