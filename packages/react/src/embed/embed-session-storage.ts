import type { EmbedSessionInfo } from './embed-session-info';

/** The part of `sessionStorage` a tab's session is kept in. */
export type TabStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

/** The page's session kept in tab storage, so that a reload of the frame resumes it. */
export interface TabSession {
  /** The organization's stored session, or null. */
  read(): EmbedSessionInfo | null;
  /** Keeps `session`, or forgets the stored one (null). */
  save(session: EmbedSessionInfo | null): void;
}

/** The tab's stored session of organization `slug`; a session of another is never read. */
export function tabSession(storage: TabStorage | null | undefined, slug: string): TabSession {
  const key = `bridgekit.embed.${slug}`;
  return {
    read() {
      try {
        const value = JSON.parse(storage?.getItem(key) ?? 'null') as EmbedSessionInfo;
        return value && value.slug === slug && typeof value.sessionToken === 'string'
          ? value
          : null;
      } catch {
        return null;
      }
    },
    save(session) {
      try {
        if (session) storage?.setItem(key, JSON.stringify(session));
        else storage?.removeItem(key);
      } catch {
        // Storage refused (partitioned or blocked): reloads then need a new sign-in URL.
      }
    },
  };
}
