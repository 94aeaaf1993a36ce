import {
  type BridgeClient,
  createClient,
  type FetchLike,
  type GetSessionToken,
} from '@bridgekit/client';
import { createContext, type ReactNode, useContext, useMemo, useRef } from 'react';
import { type Messages, type ProviderMessages, providerMessages } from './messages';
import { type ColorScheme, type ResolvedTheme, resolveTheme, type Theme } from './theme';

export interface BridgeContextValue {
  client: BridgeClient;
  /**
   * The English defaults with the provider's `messages` over them. `DataSourceForm`'s own
   * strings (`formMessages`: dialect, connection string) are here only where overridden.
   */
  messages: ProviderMessages;
  theme: ResolvedTheme;
  unstyled: boolean;
}

interface CommonProps {
  children?: ReactNode | undefined;
  /** Replaces any of the English defaults. */
  messages?: Partial<Messages> | undefined;
  /**
   * A color scheme (`light`, `dark`, `auto`), or a `Theme`: accent, radius, font, density,
   * color scheme and any `--bk-*` property, applied to every element the kit renders, dialogs
   * included. Without it the kit follows the page's CSS (`--bk-*` on any ancestor,
   * `color-scheme`).
   */
  theme?: ColorScheme | Theme | undefined;
  /** Leave out the kit's styles everywhere (the `bk` root class). */
  unstyled?: boolean | undefined;
}

export type BridgeProviderProps = CommonProps &
  (
    | {
        client: BridgeClient;
        baseUrl?: undefined;
        getSessionToken?: undefined;
        fetch?: undefined;
      }
    | {
        client?: undefined;
        baseUrl: string;
        getSessionToken: GetSessionToken;
        fetch?: FetchLike | undefined;
      }
  );

/** What `DataSourceForm` gives its parts: the provider's value with the form's strings filled in. */
export type FormContextValue = BridgeContextValue & { messages: Messages };

const BridgeContext = /* @__PURE__ */ createContext<BridgeContextValue | null>(null);

/**
 * Gives the kit's components a client, strings and a theme.
 *
 * @example
 * <BridgeProvider baseUrl="https://bridge.example.com" getSessionToken={fetchSession}>
 *   <MemberCard orgId={orgId} memberId={memberId} />
 * </BridgeProvider>
 */
export function BridgeProvider(props: BridgeProviderProps) {
  const { children, messages, theme, unstyled = false } = props;
  // The latest callback, so that an inline function does not recreate the client.
  const tokenRef = useRef(props.getSessionToken);
  tokenRef.current = props.getSessionToken;
  const client = useMemo(
    () =>
      props.client ??
      createClient(
        {
          baseUrl: props.baseUrl ?? '',
          getSessionToken: (options) => {
            if (!tokenRef.current) throw new Error('`getSessionToken` is required');
            return tokenRef.current(options);
          },
        },
        props.fetch,
      ),
    [props.client, props.baseUrl, props.fetch],
  );
  // By content: an inline `theme={{ … }}` must not give every component a new context.
  const themeKey = JSON.stringify(theme ?? null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `themeKey` stands for `theme`.
  const resolved = useMemo(() => resolveTheme(theme), [themeKey]);
  const value = useMemo(
    () => ({
      client,
      messages: providerMessages(messages),
      theme: resolved,
      unstyled,
    }),
    [client, messages, resolved, unstyled],
  );
  return <BridgeContext.Provider value={value}>{children}</BridgeContext.Provider>;
}

/** The provider's value; `component` names the caller in the error thrown outside a provider. */
export function useBridgeContext(component: string): BridgeContextValue {
  const value = useContext(BridgeContext);
  if (!value) throw new Error(`\`${component}\` must be used within \`BridgeProvider\``);
  return value;
}

/**
 * The client, strings and theme of the nearest `BridgeProvider`.
 *
 * @example
 * const { client } = useBridge();
 */
export const useBridge = () => useBridgeContext('useBridge');
