import { BridgeError, type FetchLike, type GetSessionToken } from '@bridgekit/client';
import type { EmbedSession, RenewedSession } from '@bridgekit/contract';

/** Where the full-embed page trades its handoff code for a bearer token (same origin). */
export const EMBED_SESSION_PATH = '/embed/session';
export const REFRESH_PATH = '/api/sso/session/refresh';

/** The page's session: the token and who it is for, times in ms since the epoch. */
export interface EmbedSessionInfo {
  slug: string;
  sessionToken: string;
  expiresAt: number;
  absoluteExpiresAt: number;
  organizationId: string;
  organizationName: string;
  memberId: string;
  framingOrigin: string;
}

/**
 * `signing-in` until the code is redeemed (or the tab's session resumed); `ended` for good:
 * `sign-in-failed` (no valid code and nothing to resume), `expired` (the absolute limit), or
 * `revoked` (logout, member removed, full embed turned off).
 */
export type EmbedSessionState =
  | { status: 'signing-in' }
  | { status: 'ready'; session: EmbedSessionInfo }
  | {
      status: 'ended';
      reason: 'sign-in-failed' | 'expired' | 'revoked';
      framingOrigin: string | null;
    };

export interface EmbedSessionOptions {
  /** The organization whose page this is; a stored session of another is never resumed. */
  slug: string;
  fetch?: FetchLike;
  /** Milliseconds since the epoch; tests set it. */
  now?: () => number;
  /** Tab-scoped storage for reloads (`sessionStorage`); null where the browser refuses it. */
  storage?: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> | null;
  /** The framing page's origin as the browser reports it (`location.ancestorOrigins[0]`). */
  ancestorOrigin?: string | undefined;
}

export interface EmbedSessionManager {
  getState(): EmbedSessionState;
  subscribe(listener: () => void): () => void;
  /** Signs in with the fragment's code, or resumes the tab's session without one. Once. */
  start(code: string | null): Promise<void>;
  /** For `BridgeProvider`: the current token; `forceRefresh` renews it first. */
  getSessionToken: GetSessionToken;
  /** Stops the renewal timer. */
  dispose(): void;
}

const storageKey = (slug: string) => `bridgekit.embed.${slug}`;
const MIN_DELAY_MS = 500;
const RETRY_MS = 5_000;

/**
 * When to renew: two thirds into what is left, and a minute before expiry when that is later
 * than halfway (a 15-minute token renews after 10 minutes, a 10-second one after 5 seconds).
 */
export function renewalDelay(remainingMs: number): number {
  const lead = Math.max(remainingMs - 60_000, remainingMs / 2);
  return Math.max(MIN_DELAY_MS, Math.min((remainingMs * 2) / 3, lead));
}

function readStored(
  storage: EmbedSessionOptions['storage'],
  slug: string,
): EmbedSessionInfo | null {
  try {
    const value = JSON.parse(storage?.getItem(storageKey(slug)) ?? 'null') as EmbedSessionInfo;
    return value && value.slug === slug && typeof value.sessionToken === 'string' ? value : null;
  } catch {
    return null;
  }
}

/**
 * The full-embed page's session. It starts from the single-use code the sign-in redirect put
 * in the URL fragment; a code always wins over a stored session, so an older session never
 * stands in for a new sign-in. The session is kept in tab storage so a reload of the frame
 * resumes it while it is valid. It renews itself before each token expires, until the absolute
 * limit, and ends at once when a renewal is refused.
 */
export function createEmbedSession(options: EmbedSessionOptions): EmbedSessionManager {
  const { slug, storage = null, ancestorOrigin } = options;
  const doFetch: FetchLike = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
  const now = options.now ?? Date.now;
  let state: EmbedSessionState = { status: 'signing-in' };
  let timer: ReturnType<typeof setTimeout> | undefined;
  let started = false;
  const listeners = new Set<() => void>();

  const set = (next: EmbedSessionState) => {
    state = next;
    for (const listener of listeners) listener();
  };
  const save = (session: EmbedSessionInfo | null) => {
    try {
      if (session) storage?.setItem(storageKey(slug), JSON.stringify(session));
      else storage?.removeItem(storageKey(slug));
    } catch {
      // Storage refused (partitioned or blocked): reloads then need a new sign-in URL.
    }
  };
  const end = (reason: 'sign-in-failed' | 'expired' | 'revoked') => {
    clearTimeout(timer);
    save(null);
    const framingOrigin = state.status === 'ready' ? state.session.framingOrigin : null;
    if (state.status !== 'ended') set({ status: 'ended', reason, framingOrigin });
  };

  const post = (url: string, init: RequestInit) =>
    doFetch(url, { ...init, method: 'POST', credentials: 'omit' }).catch(() => null);

  const schedule = (session: EmbedSessionInfo) => {
    clearTimeout(timer);
    const remaining = session.expiresAt - now();
    // This token already runs to the absolute limit: no renewal can extend it.
    if (session.expiresAt >= session.absoluteExpiresAt) {
      timer = setTimeout(() => end('expired'), Math.max(0, remaining));
      return;
    }
    timer = setTimeout(() => void renew(), renewalDelay(remaining));
  };

  const ready = (session: EmbedSessionInfo) => {
    save(session);
    set({ status: 'ready', session });
    schedule(session);
  };

  /** Renews the session; false (and ended) when the bridge refuses. */
  async function renew(): Promise<boolean> {
    if (state.status !== 'ready') return false;
    const current = state.session;
    const response = await post(REFRESH_PATH, {
      headers: { accept: 'application/json', authorization: `Bearer ${current.sessionToken}` },
    });
    if (state.status !== 'ready' || state.session !== current) return state.status === 'ready';
    if (response?.ok) {
      const { data } = (await response.json()) as { data: RenewedSession };
      ready({
        ...current,
        sessionToken: data.sessionToken,
        expiresAt: Date.parse(data.expiresAt),
        absoluteExpiresAt: Date.parse(data.absoluteExpiresAt),
      });
      return true;
    }
    if (response && (response.status === 401 || response.status === 403)) {
      end(now() >= current.absoluteExpiresAt ? 'expired' : 'revoked');
      return false;
    }
    // Network trouble or a 5xx/429: try again while the token lasts.
    const remaining = current.expiresAt - now();
    if (remaining <= 0) end('expired');
    else timer = setTimeout(() => void renew(), Math.min(RETRY_MS, remaining / 2));
    return true;
  }

  async function redeem(code: string) {
    const response = await post(EMBED_SESSION_PATH, {
      headers: {
        accept: 'application/json',
        'content-type': 'application/json',
        // A custom header makes any cross-site use need a preflight, which the bridge fails.
        'x-bridgekit-embed': '1',
      },
      body: JSON.stringify(ancestorOrigin ? { code, framingOrigin: ancestorOrigin } : { code }),
    });
    if (!response?.ok) return end('sign-in-failed');
    const { data } = (await response.json()) as { data: EmbedSession };
    ready({
      slug,
      sessionToken: data.sessionToken,
      expiresAt: Date.parse(data.expiresAt),
      absoluteExpiresAt: Date.parse(data.absoluteExpiresAt),
      organizationId: data.organizationId,
      organizationName: data.organizationName,
      memberId: data.memberId,
      framingOrigin: data.framingOrigin,
    });
  }

  return {
    getState: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async start(code) {
      // Again after dispose (React's StrictMode mounts twice): only the timer needs re-arming.
      if (started) {
        if (state.status === 'ready') schedule(state.session);
        return;
      }
      started = true;
      if (code) {
        // A new sign-in: whatever the tab held before is dropped first, whatever the outcome.
        save(null);
        return redeem(code);
      }
      const stored = readStored(storage, slug);
      if (!stored || stored.expiresAt <= now() + 1000) return end('sign-in-failed');
      set({ status: 'ready', session: stored });
      // A renewal right away checks the stored session is still live on the bridge.
      if (!(await renew()) && state.status === 'ended' && state.reason === 'revoked') {
        set({ status: 'ended', reason: 'sign-in-failed', framingOrigin: stored.framingOrigin });
      }
    },
    async getSessionToken({ forceRefresh }) {
      if (forceRefresh && state.status === 'ready') await renew();
      if (state.status === 'ready') return state.session.sessionToken;
      throw new BridgeError({
        status: 401,
        title: 'Unauthorized',
        detail: 'Your session has ended.',
        code: 'session_ended',
      });
    },
    dispose() {
      clearTimeout(timer);
    },
  };
}
