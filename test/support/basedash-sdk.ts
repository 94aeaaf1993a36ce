import { SignJWT } from 'jose';

// What a host using Basedash's embed SDK (github.com/Basedash/embed) sends, written from reading
// its source: `createEmbedToken` signs HS256 with header {alg, typ: "JWT"}, claims email, orgId,
// firstName/lastName/role/groups only when given, iat and exp (10 minutes by default), no jti;
// `buildEmbedUrl` puts `jwt` first, then `theme` (default auto) and every hide_* flag as
// "true"/"false", then at most one initial-page id.

export interface SdkUser {
  email: string;
  firstName?: string;
  lastName?: string;
  role?: 'ADMIN' | 'MEMBER';
  groups?: string[];
}

export type SdkTheme = 'light' | 'dark' | 'auto';

export interface SdkOptions {
  theme?: SdkTheme;
  hideOrgName?: boolean;
  hideChat?: boolean;
  hideDashboards?: boolean;
  hideInsights?: boolean;
  hideAutomations?: boolean;
  hideModels?: boolean;
  hideSuggestedPrompts?: boolean;
  hideSidebar?: boolean;
}

export type SdkPage = 'chat' | 'dashboard' | 'insight' | 'automation' | 'model';

/** The SDK's option names and the query parameters they become, in the order it writes them. */
const FLAGS: Array<[Exclude<keyof SdkOptions, 'theme'>, string]> = [
  ['hideOrgName', 'hide_org_name'],
  ['hideChat', 'hide_chat'],
  ['hideDashboards', 'hide_dashboards'],
  ['hideInsights', 'hide_insights'],
  ['hideAutomations', 'hide_automations'],
  ['hideModels', 'hide_models'],
  ['hideSuggestedPrompts', 'hide_suggested_prompts'],
  ['hideSidebar', 'hide_sidebar'],
];

/** The SDK's presets: one feature left visible, the organization name hidden. */
export const PRESETS: Record<'app' | SdkPage, SdkOptions> = {
  app: {},
  chat: {
    hideOrgName: true,
    hideDashboards: true,
    hideInsights: true,
    hideAutomations: true,
    hideModels: true,
  },
  dashboard: {
    hideOrgName: true,
    hideChat: true,
    hideInsights: true,
    hideAutomations: true,
    hideModels: true,
  },
  insight: {
    hideOrgName: true,
    hideChat: true,
    hideDashboards: true,
    hideAutomations: true,
    hideModels: true,
  },
  automation: {
    hideOrgName: true,
    hideChat: true,
    hideDashboards: true,
    hideInsights: true,
    hideModels: true,
  },
  model: {
    hideOrgName: true,
    hideChat: true,
    hideDashboards: true,
    hideInsights: true,
    hideAutomations: true,
  },
};

/** A token as the SDK's server half signs it. */
export async function signLikeSdk(input: {
  secret: string;
  orgId: string;
  user: SdkUser;
  expiresInSeconds?: number;
}): Promise<string> {
  const { secret, orgId, user, expiresInSeconds = 600 } = input;
  const claims: Record<string, unknown> = { email: user.email, orgId };
  for (const key of ['firstName', 'lastName', 'role', 'groups'] as const) {
    if (user[key] !== undefined) claims[key] = user[key];
  }
  const iat = Math.floor(Date.now() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt(iat)
    .setExpirationTime(iat + expiresInSeconds)
    .sign(new TextEncoder().encode(secret));
}

/** The iframe URL as the SDK's `buildEmbedUrl` makes it for `instanceUrl`. */
export function buildUrlLikeSdk(input: {
  token: string;
  instanceUrl: string;
  options?: SdkOptions;
  initialPage?: { type: SdkPage; id: string };
}): string {
  const base = new URL(input.instanceUrl);
  base.search = '';
  base.hash = '';
  if (!base.pathname.endsWith('/')) base.pathname += '/';
  const url = new URL('api/sso/jwt', base);
  const options = input.options ?? {};
  url.searchParams.set('jwt', input.token);
  url.searchParams.set('theme', options.theme ?? 'auto');
  for (const [option, param] of FLAGS)
    url.searchParams.set(param, String(options[option] ?? false));
  if (input.initialPage) url.searchParams.set(`${input.initialPage.type}_id`, input.initialPage.id);
  return url.toString();
}
