import type { Deps } from '../deps';
import { rowAllowsOrigin } from '../embed-origins';
import type { OrganizationWithRole } from '../store/organizations';
import { findLiveSession } from '../store/sessions';
import type { SessionClaims } from './session-token';

/** A session that may act now: its organization as the member sees it, with the current role. */
export interface LiveSession {
  claims: SessionClaims;
  org: OrganizationWithRole;
}

/**
 * Whether a verified session may still act, from the store (so every instance agrees on the
 * next request): the membership exists with the same id (its role is read here, never trusted
 * from the token), the session was not ended (alone, or with every session of its organization
 * signed in up to a jwtSecret rotation), and a full-embed session's organization still
 * has full embed on and still allows the page that framed the sign-in.
 */
export async function liveSession(deps: Deps, claims: SessionClaims): Promise<LiveSession | null> {
  const org = await findLiveSession(deps.store.db, claims, deps.config.sessionMaxAgeSeconds * 1000);
  if (!org) return null;
  if (claims.kind === 'embed') {
    if (!org.fullEmbedEnabled) return null;
    if (!claims.framingOrigin || !rowAllowsOrigin(org, claims.framingOrigin)) return null;
  }
  return { claims, org };
}
