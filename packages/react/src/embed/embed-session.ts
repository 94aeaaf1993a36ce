import { BridgeError, type FetchLike, type GetSessionToken } from '@bridgekit/client';
import type { EmbedSession, RenewedSession } from '@bridgekit/contract';
import type { EmbedSessionInfo } from './embed-session-info';
import {
  requestRenewal,
  requestSession,
  type SessionPost,
  sessionInfo,
  sessionPost,
} from './embed-session-requests';
import { type TabSession, type TabStorage, tabSession } from './embed-session-storage';

export type { EmbedSessionInfo } from './embed-session-info';
export { EMBED_SESSION_PATH, REFRESH_PATH } from './embed-session-requests';

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
  fetch?: FetchLike | undefined;
  /** Milliseconds since the epoch; tests set it. */
  now?: (() => number) | undefined;
  /** Tab-scoped storage for reloads (`sessionStorage`); null where the browser refuses it. */
  storage?: TabStorage | null | undefined;
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

type EndReason = Extract<EmbedSessionState, { status: 'ended' }>['reason'];

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

/** The one pending renewal (or, at the absolute limit, the expiry) of the session. */
interface RenewalTimer {
  /** Arms the next renewal before `session`'s token expires. */
  schedule(session: EmbedSessionInfo): void;
  /** Tries again soon after a failed renewal, with `remainingMs` left on the token. */
  retry(remainingMs: number): void;
  stop(): void;
}

function renewalTimer(now: () => number, renew: () => void, expire: () => void): RenewalTimer {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return {
    schedule(session) {
      clearTimeout(timer);
      const remaining = session.expiresAt - now();
      // This token already runs to the absolute limit: no renewal can extend it.
      if (session.expiresAt >= session.absoluteExpiresAt) {
        timer = setTimeout(expire, Math.max(0, remaining));
        return;
      }
      timer = setTimeout(renew, renewalDelay(remaining));
    },
    retry(remainingMs) {
      // Replaces the pending renewal (a forced one may fail while another is armed): one timer.
      clearTimeout(timer);
      timer = setTimeout(renew, Math.min(RETRY_MS, remainingMs / 2));
    },
    stop() {
      clearTimeout(timer);
    },
  };
}

/** What the session's steps (renew, redeem, resume) share: its state, and the moves it makes. */
interface SessionCore {
  slug: string;
  ancestorOrigin: string | undefined;
  post: SessionPost;
  now: () => number;
  tab: TabSession;
  timer: RenewalTimer;
  get(): EmbedSessionState;
  set(next: EmbedSessionState): void;
  subscribe(listener: () => void): () => void;
  /** The session is (again) ready: kept in the tab, its renewal armed. */
  ready(session: EmbedSessionInfo): void;
  /**
   * The session ends for good: no renewal, nothing kept in the tab. Its framing origin is the
   * live session's, else `framingOrigin` when known.
   */
  end(reason: EndReason, framingOrigin?: string | null): void;
}

function sessionCore(options: EmbedSessionOptions): SessionCore {
  const { slug, storage = null, ancestorOrigin } = options;
  const doFetch: FetchLike = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
  const now = options.now ?? Date.now;
  let state: EmbedSessionState = { status: 'signing-in' };
  const listeners = new Set<() => void>();
  const core: SessionCore = {
    slug,
    ancestorOrigin,
    post: sessionPost(doFetch),
    now,
    tab: tabSession(storage, slug),
    timer: renewalTimer(
      now,
      () => void renew(core),
      () => core.end('expired'),
    ),
    get: () => state,
    set(next) {
      state = next;
      for (const listener of listeners) listener();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    ready(session) {
      core.tab.save(session);
      core.set({ status: 'ready', session });
      core.timer.schedule(session);
    },
    end(reason, known = null) {
      core.timer.stop();
      core.tab.save(null);
      const framingOrigin = state.status === 'ready' ? state.session.framingOrigin : known;
      if (state.status !== 'ended') core.set({ status: 'ended', reason, framingOrigin });
    },
  };
  return core;
}

/** Renews the session; false (and ended) when the bridge refuses. */
async function renew(core: SessionCore): Promise<boolean> {
  const state = core.get();
  if (state.status !== 'ready') return false;
  const current = state.session;
  const response = await requestRenewal(core.post, current.sessionToken);
  const latest = core.get();
  if (latest.status !== 'ready' || latest.session !== current) return latest.status === 'ready';
  if (response?.ok) {
    const { data } = (await response.json()) as { data: RenewedSession };
    core.ready({
      ...current,
      sessionToken: data.sessionToken,
      expiresAt: Date.parse(data.expiresAt),
      absoluteExpiresAt: Date.parse(data.absoluteExpiresAt),
    });
    return true;
  }
  if (response && (response.status === 401 || response.status === 403)) {
    core.end(core.now() >= current.absoluteExpiresAt ? 'expired' : 'revoked');
    return false;
  }
  // Network trouble or a 5xx/429: try again while the token lasts.
  const remaining = current.expiresAt - core.now();
  if (remaining <= 0) core.end('expired');
  else core.timer.retry(remaining);
  return true;
}

/** Signs in with the handoff code; a code the bridge refuses ends the session. */
async function redeem(core: SessionCore, code: string) {
  const response = await requestSession(core.post, code, core.ancestorOrigin);
  if (!response?.ok) return core.end('sign-in-failed');
  const { data } = (await response.json()) as { data: EmbedSession };
  core.ready(sessionInfo(core.slug, data));
}

/** Resumes the tab's stored session, when it has one that is still valid. */
async function resume(core: SessionCore) {
  const stored = core.tab.read();
  if (!stored || stored.expiresAt <= core.now() + 1000) {
    // An expired session's framing origin, as the bridge recorded it, still says where the
    // page is framed (Firefox reports no parent origin).
    const framingOrigin = typeof stored?.framingOrigin === 'string' ? stored.framingOrigin : null;
    return core.end('sign-in-failed', framingOrigin);
  }
  core.set({ status: 'ready', session: stored });
  // A renewal right away checks the stored session is still live on the bridge.
  const live = await renew(core);
  const state = core.get();
  if (!live && state.status === 'ended' && state.reason === 'revoked') {
    core.set({ status: 'ended', reason: 'sign-in-failed', framingOrigin: stored.framingOrigin });
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
  const core = sessionCore(options);
  let started = false;
  return {
    getState: core.get,
    subscribe: core.subscribe,
    async start(code) {
      // Again after dispose (React's StrictMode mounts twice): only the timer needs re-arming.
      if (started) {
        const state = core.get();
        if (state.status === 'ready') core.timer.schedule(state.session);
        return;
      }
      started = true;
      if (!code) return resume(core);
      // A new sign-in: whatever the tab held before is dropped first, whatever the outcome.
      core.tab.save(null);
      return redeem(core, code);
    },
    async getSessionToken({ forceRefresh }) {
      if (forceRefresh && core.get().status === 'ready') await renew(core);
      const state = core.get();
      if (state.status === 'ready') return state.session.sessionToken;
      throw new BridgeError({
        status: 401,
        title: 'Unauthorized',
        detail: 'Your session has ended.',
        code: 'session_ended',
      });
    },
    dispose() {
      core.timer.stop();
    },
  };
}
