import type { GetSessionToken } from '@bridgekit/client';

/** Who is signed in, here and at the bridge (the backend's `GET /api/me`). */
export interface Me {
  user: { name: string; email: string };
  bridgeUrl: string;
  organization: { id: string; name: string };
  /** The membership at the bridge; `role` is what the kit and this layout go by. */
  member: { id: string; role: 'ADMIN' | 'MEMBER' };
}

export type DemoUser = 'ada' | 'grace';

async function post(path: string, body: unknown): Promise<Response> {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return res;
}

/** The signed-in user, or null when nobody is. */
export async function loadMe(): Promise<Me | null> {
  const res = await fetch('/api/me');
  if (res.status === 401) return null;
  if (!res.ok) throw new Error(`/api/me: HTTP ${res.status}`);
  return (await res.json()) as Me;
}

export const signIn = (user: DemoUser) => post('/api/sign-in', { user });
export const signOut = () => post('/api/sign-out', {});

/**
 * The kit's `getSessionToken`: asks this app's backend, which signs and exchanges the SSO token
 * (the organization's secret never reaches the page). Reused until 30 s before it expires.
 */
export function sessionTokens(): GetSessionToken {
  let current: { sessionToken: string; expiresAt: string } | undefined;
  return async ({ forceRefresh }) => {
    if (!current || forceRefresh || Date.parse(current.expiresAt) - 30_000 < Date.now()) {
      const res = await post('/api/bridge-session', { forceRefresh });
      current = (await res.json()) as { sessionToken: string; expiresAt: string };
    }
    return current.sessionToken;
  };
}
