import { createSsoToken, exchangeSsoToken, type SsoSession } from '@bridgekit/node';
import type { HostOrganization } from './organization.js';
import type { HostUser } from './users.js';

export interface SessionCacheOptions {
  bridgeUrl: string;
  organization: HostOrganization;
  /** Sign in again this long before a session expires. Default one minute. */
  renewBeforeMs?: number;
  now?: () => number;
}

/** `session(user, forceRefresh)`: the user's bridge session, exchanged once and reused. */
export type SessionCache = (user: HostUser, forceRefresh: boolean) => Promise<SsoSession>;

/**
 * Bridge sessions per host user: sign an SSO token for the user with the organization's secret,
 * exchange it at the bridge, and reuse the session until shortly before it expires (or the page
 * says the bridge refused it). Concurrent requests for one user share one exchange.
 */
export function createSessionCache(options: SessionCacheOptions): SessionCache {
  const { bridgeUrl, organization, renewBeforeMs = 60_000, now = Date.now } = options;
  const sessions = new Map<string, Promise<SsoSession>>();

  async function signIn(user: HostUser): Promise<SsoSession> {
    const jwt = await createSsoToken({
      secret: organization.jwtSecret,
      orgId: organization.id,
      user,
      expiresIn: '1m', // exchanged right away
    });
    return exchangeSsoToken({ baseUrl: bridgeUrl, jwt });
  }

  return async (user, forceRefresh) => {
    const cached = sessions.get(user.email);
    if (cached && !forceRefresh) {
      const session = await cached.catch(() => undefined);
      if (session && Date.parse(session.expiresAt) - renewBeforeMs > now()) return session;
      // Another request may have started the next sign-in meanwhile: share it.
      const latest = sessions.get(user.email);
      if (latest && latest !== cached) return latest;
    }
    const next = signIn(user);
    sessions.set(user.email, next);
    next.catch(() => {
      if (sessions.get(user.email) === next) sessions.delete(user.email);
    });
    return next;
  };
}
