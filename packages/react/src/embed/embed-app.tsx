import {
  type FetchLike,
  type GetSessionToken,
  type GetSessionTokenOptions,
  isBridgeError,
} from '@bridgekit/client';
import { useCallback, useMemo, useState } from 'react';
import { BridgeProvider } from '../provider/bridge-provider';
import type { ColorScheme as Theme } from '../provider/theme';
import { EmbedPage } from './embed-page';
import { embedSessionToken } from './embed-session';

/** What the bridge's page shell hands to the app (`data-embed` on `#bridgekit-root`). */
export interface EmbedConfig {
  orgId: string;
  memberId: string;
  orgName: string;
}

/** The `data-embed` JSON, or null when it is missing or malformed. */
export function readEmbedConfig(json: string | undefined): EmbedConfig | null {
  try {
    const value = JSON.parse(json ?? '') as Partial<EmbedConfig>;
    const { orgId, memberId, orgName } = value;
    if (typeof orgId !== 'string' || typeof memberId !== 'string') return null;
    return { orgId, memberId, orgName: typeof orgName === 'string' ? orgName : '' };
  } catch {
    return null;
  }
}

export interface EmbedAppProps extends EmbedConfig {
  /** Default: the session cookie traded at `POST /embed/session`. */
  getSessionToken?: GetSessionToken;
  /** Replaces `fetch` for API calls (tests). */
  fetch?: FetchLike;
  theme?: Theme;
}

/**
 * The bridge's full-embed page: the organization's data sources with add and edit through
 * `DataSourceForm`, and the signed-in member's `MemberCard`. API calls use the bearer token only.
 *
 * @example
 * createRoot(root).render(<EmbedApp orgId={orgId} memberId={memberId} orgName="Acme" />);
 */
export function EmbedApp(props: EmbedAppProps) {
  const { getSessionToken, fetch, theme = 'auto', ...config } = props;
  const [ended, setEnded] = useState(false);
  const source = useMemo(() => getSessionToken ?? embedSessionToken(), [getSessionToken]);
  const tokens = useCallback(
    async (options: GetSessionTokenOptions) => {
      try {
        return await source(options);
      } catch (error) {
        if (isBridgeError(error) && error.status === 401) setEnded(true);
        throw error;
      }
    },
    [source],
  );
  // Never the cookie on API calls: it stays with /embed/session.
  const apiFetch = useMemo<FetchLike>(
    () => (url, init) => (fetch ?? globalThis.fetch)(url, { ...init, credentials: 'omit' }),
    [fetch],
  );
  return (
    <BridgeProvider baseUrl="" getSessionToken={tokens} fetch={apiFetch} theme={theme}>
      <EmbedPage {...config} theme={theme} ended={ended} />
    </BridgeProvider>
  );
}
