import type { FetchLike } from '@bridgekit/client';
import { useEffect, useMemo, useSyncExternalStore } from 'react';
import { BridgeProvider } from '../provider/bridge-provider';
import type { ColorScheme as Theme } from '../provider/theme';
import { embedMessages as text } from './embed-messages';
import { EmbedPage } from './embed-page';
import { createEmbedSession, type EmbedSessionManager } from './embed-session';
import { parsedOrigin } from './host-messages';
import { useHostTargets, useResizeMessages, useSessionEndedMessage } from './use-host-messages';

/** What the bridge's page shell hands to the app (`data-embed` on `#bridgekit-root`). */
export interface EmbedConfig {
  slug: string;
  /** The organization's allowed origins: the only ones that can frame the page. */
  frameOrigins: string[];
  theme: Theme;
  hideOrgName: boolean;
}

const THEMES: readonly Theme[] = ['light', 'dark', 'auto'];

/** The `data-embed` JSON, or null when it is missing or malformed. */
export function readEmbedConfig(json: string | undefined): EmbedConfig | null {
  try {
    const value = JSON.parse(json ?? '') as Partial<EmbedConfig>;
    const { slug, frameOrigins, theme, hideOrgName } = value;
    if (typeof slug !== 'string' || !Array.isArray(frameOrigins)) return null;
    return {
      slug,
      frameOrigins: frameOrigins.filter((o): o is string => typeof o === 'string'),
      theme: theme && THEMES.includes(theme) ? theme : 'light',
      hideOrgName: hideOrgName === true,
    };
  } catch {
    return null;
  }
}

/** What the sign-in redirect put in the page's fragment. */
export interface Handoff {
  /** The single-use handoff code; null on a reload. */
  code: string | null;
  /**
   * The framing origin the bridge checked at sign-in, when the fragment names one (an origin and
   * nothing more); for messages only (see EmbedAppProps.signInOrigin).
   */
  signInOrigin: string | undefined;
}

/** Takes the handoff out of the address at once: the code never stays in history. */
export function takeHandoff(win: Window = window): Handoff {
  const fragment = new URLSearchParams(win.location.hash.slice(1));
  if (win.location.hash) {
    win.history.replaceState(win.history.state, '', win.location.pathname + win.location.search);
  }
  const origin = fragment.get('origin');
  return {
    code: fragment.get('code'),
    signInOrigin: origin && parsedOrigin(origin) ? origin : undefined,
  };
}

export interface EmbedAppProps {
  config: EmbedConfig;
  /** The handoff code from the fragment; null on a reload. */
  code: string | null;
  /** The session; default: one made here with `sessionStorage`. */
  session?: EmbedSessionManager | undefined;
  /**
   * The framing origin the page reports when it signs in (see reportedFramingOrigin): undefined
   * at top level, where the bridge refuses the code.
   */
  ancestorOrigin?: string | undefined;
  /**
   * The framing origin the bridge checked at sign-in (the redirect's fragment). Before the page
   * has its session, messages go to it when the browser does not report the parent's origin
   * (Firefox has no `location.ancestorOrigins`) and it is one of the organization's origins.
   * The bridge binds the session to the origin it recorded, whatever the page reports.
   */
  signInOrigin?: string | undefined;
  /** Replaces `fetch` for API calls (tests). */
  fetch?: FetchLike | undefined;
}

function tabStorage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

/** The page's session (made here unless given), started on mount, and its state. */
function useEmbedSession(
  slug: string,
  code: string | null,
  session: EmbedSessionManager | undefined,
  ancestorOrigin: string | undefined,
  fetch: FetchLike | undefined,
) {
  const manager = useMemo(
    () =>
      session ??
      createEmbedSession({
        slug,
        storage: tabStorage(),
        ancestorOrigin,
        ...(fetch ? { fetch } : {}),
      }),
    [session, slug, ancestorOrigin, fetch],
  );
  const state = useSyncExternalStore(manager.subscribe, manager.getState, manager.getState);
  useEffect(() => {
    void manager.start(code);
    return () => manager.dispose();
  }, [manager, code]);
  return [manager, state] as const;
}

/**
 * The bridge's full-embed page: signs in with the handoff code, then the organization's data
 * sources with add and edit through `DataSourceForm`, and the signed-in member's `MemberCard`.
 * It tells the framing page its height (`bridgekit:resize`) and when its session has ended
 * (`bridgekit:session-ended`). API calls use the bearer token only.
 */
export function EmbedApp({
  config,
  code,
  session,
  ancestorOrigin,
  signInOrigin,
  fetch,
}: EmbedAppProps) {
  const [manager, state] = useEmbedSession(config.slug, code, session, ancestorOrigin, fetch);
  const targets = useHostTargets(state, config.frameOrigins, ancestorOrigin ?? signInOrigin);
  useSessionEndedMessage(state.status, targets);
  const root = useResizeMessages(targets);

  const apiFetch = useMemo<FetchLike>(
    () => (url, init) => (fetch ?? globalThis.fetch)(url, { ...init, credentials: 'omit' }),
    [fetch],
  );

  return (
    <div ref={root} className="bk-embed-root" data-state={state.status}>
      {state.status === 'ready' ? (
        <BridgeProvider
          baseUrl=""
          getSessionToken={manager.getSessionToken}
          fetch={apiFetch}
          theme={config.theme}
        >
          <EmbedPage
            orgId={state.session.organizationId}
            memberId={state.session.memberId}
            orgName={state.session.organizationName}
            hideOrgName={config.hideOrgName}
            theme={config.theme}
          />
        </BridgeProvider>
      ) : (
        <div className="bk bk-embed" data-bk-theme={config.theme}>
          {state.status === 'signing-in' ? (
            <p className="bk-embed__status" role="status">
              {text.signingIn}
            </p>
          ) : (
            <div className="bk-alert" role="alert" data-reason={state.reason}>
              <h1>{state.reason === 'sign-in-failed' ? text.signInFailed : text.sessionEnded}</h1>
              <p>
                {state.reason === 'sign-in-failed'
                  ? text.signInFailedDetail
                  : state.reason === 'expired'
                    ? text.sessionExpiredDetail
                    : text.sessionRevokedDetail}
              </p>
            </div>
          )}
        </div>
      )}
    </div>
  );
}
