import type { Role } from '@bridgekit/contract';
import { useEffect, useSyncExternalStore } from 'react';
import { type BridgeContextValue, useBridgeContext } from './bridge-provider';
import { SERVER_SNAPSHOT, type SessionState, sessionStoreOf } from './session-store';

/** What the caller may do in one organization, once the session is known. */
export type Access =
  | { status: 'loading' }
  | {
      status: 'ready';
      /** The member's current role; null without a session (a proxy with an API key). */
      role: Role | null;
      /** False for a MEMBER, or after the bridge refused a write with `admin_required`. */
      canEdit: boolean;
    };

/** The session of the provider, read once and shared; `useAccess` and `useBridgeSession` use it. */
export function useSessionSnapshot(context: BridgeContextValue) {
  const session = sessionStoreOf(context.client);
  const snapshot = useSyncExternalStore(
    session.subscribe,
    session.getSnapshot,
    () => SERVER_SNAPSHOT,
  );
  useEffect(() => session.load(), [session]);
  return snapshot;
}

/**
 * The caller's access to `orgId`. The role comes from the bridge's session, never from a prop.
 * Without a session (an API key behind the host's proxy) the host's backend decides what it
 * forwards: the kit lets the caller act, and a write the bridge refuses with `admin_required`
 * turns the organization read-only from then on.
 */
export function useAccess(context: BridgeContextValue, orgId: string): Access {
  const { state, refused } = useSessionSnapshot(context);
  if (state.status === 'idle' || state.status === 'loading') return { status: 'loading' };
  const role = roleIn(state, orgId);
  return { status: 'ready', role, canEdit: role !== 'MEMBER' && !refused.includes(orgId) };
}

function roleIn(state: SessionState, orgId: string): Role | null {
  if (state.status !== 'ready') return null;
  const { organization, member } = state.session;
  return organization.id === orgId ? member.role : null;
}

/**
 * The signed-in session as the bridge reports it (its member's current role), for a host's own
 * role-aware layout. `none` when the provider's client has no session (an API-key proxy).
 *
 * @example
 * const session = useBridgeSession();
 * const isAdmin = session.status === 'ready' && session.session.member.role === 'ADMIN';
 */
export function useBridgeSession(): SessionState {
  return useSessionSnapshot(useBridgeContext('useBridgeSession')).state;
}
