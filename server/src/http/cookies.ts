export const SESSION_COOKIE = 'bk_session';

/** The value of one cookie from a `Cookie` header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The full-embed session cookie: third-party in an iframe, so SameSite=None and Partitioned (CHIPS). */
export function sessionCookie(token: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${token}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; Secure; SameSite=None; Partitioned`;
}

/** Removes the full-embed session cookie (logout). */
export const clearSessionCookie = () => sessionCookie('', 0);
