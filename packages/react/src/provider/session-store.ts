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
  /** Reads the session once (`GET /api/sso/session`); later calls do nothing. */
  load: () => void;
  /**
   * Remembers that the bridge refused a write in this organization for want of ADMIN, and
   * demotes the session's member there to MEMBER.
   */
  refuse: (orgId: string) => void;
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
      if (snapshot.state.status !== 'idle') return;
      set({ state: { status: 'loading', session: null } });
      client.ssoSession().then(
        ({ data }) => set({ state: { status: 'ready', session: data } }),
        (error: unknown) => set({ state: { status: 'none', session: null, error } }),
      );
    },
    refuse(orgId) {
      if (snapshot.refused.includes(orgId)) return;
      set({ refused: [...snapshot.refused, orgId], state: demoted(snapshot.state, orgId) });
    },
  };
}
