import type { BridgeClient } from '@bridgekit/client';
import type { SessionInfo } from '@bridgekit/contract';

/**
 * The caller as the bridge sees it: `ready` with the session (its member's current role), or
 * `none` when there is no session to read: an API key behind the host's proxy, or a failed read.
 */
export type SessionState =
  | { status: 'idle' | 'loading'; session: null }
  | { status: 'ready'; session: SessionInfo }
  | { status: 'none'; session: null; error: unknown };

export interface SessionSnapshot {
  state: SessionState;
  /** Organizations where the bridge refused a write with `admin_required`. */
  refused: readonly string[];
}

export interface SessionStore {
  subscribe: (listener: () => void) => () => void;
  getSnapshot: () => SessionSnapshot;
  /**
   * Reads the session (`GET /api/sso/session`) unless it is read or being read. A read the
   * bridge answered stands (no session: an API key behind the host's proxy); one that got no
   * answer or a server error is read again by the next call (the next component that mounts).
   */
  load: () => void;
  /** Replaces parts of the snapshot, from the current one; null changes nothing. */
  update: (change: (current: SessionSnapshot) => Partial<SessionSnapshot> | null) => void;
}

/**
 * The session after the bridge refused its member a write in `orgId` for want of ADMIN: the
 * member is no longer an admin there, so everything showing the role says MEMBER from now on.
 */
function demoted(state: SessionState, orgId: string): SessionState {
  if (state.status !== 'ready') return state;
  const { organization, member } = state.session;
  if (organization.id !== orgId || member.role === 'MEMBER') return state;
  return { ...state, session: { ...state.session, member: { ...member, role: 'MEMBER' } } };
}

export const SERVER_SNAPSHOT: SessionSnapshot = {
  state: { status: 'idle', session: null },
  refused: [],
};

const stores = /* @__PURE__ */ new WeakMap<BridgeClient, SessionStore>();

/**
 * The session store of a provider's client, made on first use: every component of the provider
 * shares one session read, and a page with no component that needs the role makes none.
 */
export function sessionStoreOf(client: BridgeClient): SessionStore {
  let store = stores.get(client);
  if (!store) {
    store = createSessionStore(client);
    stores.set(client, store);
  }
  return store;
}

/** Whether a failed read had the bridge's answer (a status below 500), not a transient failure. */
const answered = (error: unknown) => {
  const status = (error as { status?: number } | null)?.status ?? 0;
  return status > 0 && status < 500;
};

function createSessionStore(client: BridgeClient): SessionStore {
  let snapshot = SERVER_SNAPSHOT;
  const listeners = new Set<() => void>();
  const set = (next: Partial<SessionSnapshot>) => {
    snapshot = { ...snapshot, ...next };
    for (const listener of listeners) listener();
  };
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    getSnapshot: () => snapshot,
    load() {
      const { state } = snapshot;
      if (state.status === 'loading' || state.status === 'ready') return;
      if (state.status === 'none' && answered(state.error)) return;
      set({ state: { status: 'loading', session: null } });
      client.ssoSession().then(
        ({ data }) => set({ state: { status: 'ready', session: data } }),
        (error: unknown) => set({ state: { status: 'none', session: null, error } }),
      );
    },
    update(change) {
      const next = change(snapshot);
      if (next) set(next);
    },
  };
}

/**
 * Remembers that the bridge refused a write in `orgId` for want of ADMIN, and demotes the
 * session's member there to MEMBER. A function apart from the store, so that a page whose
 * components never write (a `MemberCard` alone) does not carry it.
 */
export function refuseAdmin(client: BridgeClient, orgId: string) {
  sessionStoreOf(client).update((current) =>
    current.refused.includes(orgId)
      ? null
      : { refused: [...current.refused, orgId], state: demoted(current.state, orgId) },
  );
}
