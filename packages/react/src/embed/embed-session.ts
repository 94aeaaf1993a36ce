import { BridgeError, type FetchLike, type GetSessionToken } from '@bridgekit/client';
import type { EmbedSession } from '@bridgekit/contract';

/** Where the full-embed page trades its HttpOnly cookie for a bearer token (same origin). */
export const EMBED_SESSION_PATH = '/embed/session';

// Ask for the token again a little before it expires rather than after a 401.
const EXPIRY_MARGIN_MS = 30_000;

export interface EmbedSessionOptions {
  fetch?: FetchLike;
  /** Milliseconds since the epoch; tests set it. */
  now?: () => number;
}

/**
 * `getSessionToken` for the full-embed page: `POST /embed/session` with the session cookie
 * (the only request that carries it), cached until shortly before `expiresAt`, fetched again on
 * `forceRefresh`. Concurrent callers share one request. An ended session throws a `BridgeError`.
 *
 * @example
 * <BridgeProvider baseUrl="" getSessionToken={embedSessionToken()}>…</BridgeProvider>
 */
export function embedSessionToken(options: EmbedSessionOptions = {}): GetSessionToken {
  const doFetch: FetchLike = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
  const now = options.now ?? Date.now;
  let cached: { token: string; expiresAt: number } | null = null;
  let pending: Promise<string> | null = null;

  async function exchange(): Promise<string> {
    let response: Response;
    try {
      response = await doFetch(EMBED_SESSION_PATH, {
        method: 'POST',
        // The custom header makes any cross-site use need a preflight, which the bridge fails.
        headers: { accept: 'application/json', 'x-bridgekit-embed': '1' },
        credentials: 'same-origin',
      });
    } catch (cause) {
      throw new BridgeError(
        { status: 0, title: 'NetworkError', detail: 'The bridge could not be reached.' },
        { cause },
      );
    }
    if (!response.ok) {
      throw new BridgeError({
        status: response.status,
        title: response.status === 401 ? 'Unauthorized' : 'HttpError',
        detail: 'Your session has ended. Reload the page to sign in again.',
        requestId: response.headers.get('x-request-id'),
      });
    }
    const { data } = (await response.json()) as { data: EmbedSession };
    cached = { token: data.sessionToken, expiresAt: Date.parse(data.expiresAt) };
    return data.sessionToken;
  }

  return ({ forceRefresh }) => {
    if (forceRefresh) cached = null;
    if (cached && cached.expiresAt - EXPIRY_MARGIN_MS > now()) return cached.token;
    pending ??= exchange().finally(() => {
      pending = null;
    });
    return pending;
  };
}
