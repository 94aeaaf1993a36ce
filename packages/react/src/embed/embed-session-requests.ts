import type { FetchLike } from '@bridgekit/client';
import type { EmbedSession } from '@bridgekit/contract';
import type { EmbedSessionInfo } from './embed-session-info';

/** Where the full-embed page trades its handoff code for a bearer token (same origin). */
export const EMBED_SESSION_PATH = '/embed/session';
export const REFRESH_PATH = '/api/sso/session/refresh';

/** A POST without cookies; null instead of a network error. */
export type SessionPost = (url: string, init: RequestInit) => Promise<Response | null>;

export function sessionPost(doFetch: FetchLike): SessionPost {
  return (url, init) =>
    doFetch(url, { ...init, method: 'POST', credentials: 'omit' }).catch(() => null);
}

/** Asks the bridge for a session in exchange for the single-use handoff code. */
export function requestSession(
  post: SessionPost,
  code: string,
  ancestorOrigin: string | undefined,
) {
  return post(EMBED_SESSION_PATH, {
    headers: {
      accept: 'application/json',
      'content-type': 'application/json',
      // A custom header makes any cross-site use need a preflight, which the bridge fails.
      'x-bridgekit-embed': '1',
    },
    body: JSON.stringify(ancestorOrigin ? { code, framingOrigin: ancestorOrigin } : { code }),
  });
}

/** The page's session from the bridge's answer to the handoff code. */
export function sessionInfo(slug: string, data: EmbedSession): EmbedSessionInfo {
  return {
    slug,
    sessionToken: data.sessionToken,
    expiresAt: Date.parse(data.expiresAt),
    absoluteExpiresAt: Date.parse(data.absoluteExpiresAt),
    organizationId: data.organizationId,
    organizationName: data.organizationName,
    memberId: data.memberId,
    framingOrigin: data.framingOrigin,
  };
}

/** Asks the bridge to renew the session whose token is `sessionToken`. */
export function requestRenewal(post: SessionPost, sessionToken: string) {
  return post(REFRESH_PATH, {
    headers: { accept: 'application/json', authorization: `Bearer ${sessionToken}` },
  });
}
