import { EMBED_HIDE_FLAGS, EMBED_INITIAL_PAGE_IDS, EmbedTheme } from '@bridgekit/contract';

/** How the full-embed page looks, from the sign-in URL's options. */
export interface EmbedPageOptions {
  theme: EmbedTheme;
  hideOrgName: boolean;
}

const KNOWN = new Set<string>(['jwt', 'theme', ...EMBED_HIDE_FLAGS, ...EMBED_INITIAL_PAGE_IDS]);

/**
 * The page options of a sign-in URL, read leniently: `theme` is light unless it says dark or
 * auto, `hide_org_name` hides the heading only when it is "true". Everything else a host's SDK
 * may send is accepted; `ignored` names the parameters the bridge does not know (for a debug
 * log), never their values.
 */
export function readEmbedOptions(query: Record<string, unknown>): {
  options: EmbedPageOptions;
  ignored: string[];
} {
  const theme = EmbedTheme.safeParse(query.theme);
  return {
    options: {
      theme: theme.success ? theme.data : 'light',
      hideOrgName: query.hide_org_name === 'true',
    },
    ignored: Object.keys(query).filter((name) => !KNOWN.has(name)),
  };
}

/** The options as the embed page's query string ('' for the defaults), for the redirect. */
export function embedOptionsQuery(options: EmbedPageOptions): string {
  const params = new URLSearchParams();
  if (options.theme !== 'light') params.set('theme', options.theme);
  if (options.hideOrgName) params.set('hide_org_name', 'true');
  const query = params.toString();
  return query ? `?${query}` : '';
}
