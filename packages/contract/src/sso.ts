import { z } from 'zod';
import { Timestamp } from './common';
import { Member, Role } from './member';
import { Organization } from './organization';

/** Longest SSO token accepted, in characters (UTF-8 bytes for a JWT). */
export const MAX_SSO_TOKEN_LENGTH = 8192;

export const SsoToken = z
  .string()
  .min(1, 'Required')
  .max(MAX_SSO_TOKEN_LENGTH, `Must be at most ${MAX_SSO_TOKEN_LENGTH} characters`);

export const SsoExchangeBody = z.strictObject({ jwt: SsoToken });
export type SsoExchangeBody = z.infer<typeof SsoExchangeBody>;

/** Colour schemes of the full-embed page (`theme` on `GET /api/sso/jwt`); absent means light. */
export const EmbedTheme = z.enum(['light', 'dark', 'auto']);
export type EmbedTheme = z.infer<typeof EmbedTheme>;

/**
 * `hide_*` flags Basedash's embed SDK sends ("true"/"false"). Only `hide_org_name` has an effect
 * on the bridge's page (it hides the organization heading); the page has none of the others'
 * features, so they are accepted and ignored.
 */
export const EMBED_HIDE_FLAGS = [
  'hide_org_name',
  'hide_chat',
  'hide_dashboards',
  'hide_insights',
  'hide_automations',
  'hide_models',
  'hide_suggested_prompts',
  'hide_sidebar',
] as const;

/** Initial-page ids Basedash's embed SDK may send (at most one); accepted, no effect here. */
export const EMBED_INITIAL_PAGE_IDS = [
  'chat_id',
  'dashboard_id',
  'insight_id',
  'automation_id',
  'model_id',
] as const;

const option = (description: string) => z.string().optional().meta({ description });

/**
 * The full-embed sign-in URL as a host's SDK builds it. Only `jwt` is checked strictly: a
 * browser URL must not break because the host's SDK is newer than the bridge, so an option
 * with a value the bridge does not know, and any parameter it does not know, are ignored.
 */
export const SsoBrowserQuery = z.looseObject({
  jwt: SsoToken,
  theme: option('light | dark | auto (follows the OS); absent or unknown: light'),
  ...Object.fromEntries(
    EMBED_HIDE_FLAGS.map((flag) => [
      flag,
      option(
        flag === 'hide_org_name'
          ? '"true" hides the organization heading'
          : 'Accepted for Basedash SDK compatibility; no effect on this page',
      ),
    ]),
  ),
  ...Object.fromEntries(
    EMBED_INITIAL_PAGE_IDS.map((id) => [
      id,
      option('Accepted for Basedash SDK compatibility; no effect on this page'),
    ]),
  ),
});

/** What the full-embed page sends to `POST /embed/session`. */
export const EmbedSessionBody = z.strictObject({
  /** The single-use handoff code from the sign-in redirect's fragment (`#code=…`). */
  code: z.string().min(1, 'Required').max(128, 'Must be at most 128 characters'),
  /**
   * The framing page's origin as the browser reports it (`location.ancestorOrigins[0]`; where the
   * browser has none, the sign-in's origin, sent only from inside a frame). Without it the code
   * is refused (403 `embed_framing_required`) and burnt: a code redeems only inside a frame.
   */
  framingOrigin: z
    .string()
    .max(300, 'Must be at most 300 characters')
    .optional()
    .describe(
      "The framing page's origin as the browser reports it. Without it (a top-level page) or when it is not the origin that signed in, the code is refused with 403 (embed_framing_required, embed_origin_mismatch) and burnt",
    ),
});
export type EmbedSessionBody = z.infer<typeof EmbedSessionBody>;

/** Claims a host backend signs with the organization's jwtSecret (HS256). */
export const SsoClaims = z.object({
  email: z.string(),
  orgId: z.string(),
  iat: z.number(),
  exp: z.number(),
  firstName: z.string().optional(),
  lastName: z.string().optional(),
  role: Role.optional(),
  groups: z.array(z.string()).optional(),
  jti: z.string().optional(),
});
export type SsoClaims = z.infer<typeof SsoClaims>;

export const SsoSession = z.object({
  sessionToken: z.string(),
  /** When this token stops working; renew before then (`POST /api/sso/session/refresh`). */
  expiresAt: Timestamp,
  /** When renewals stop: the sign-in plus BRIDGE_EMBED_SESSION_MAX_HOURS. */
  absoluteExpiresAt: Timestamp,
  organization: Organization,
  member: Member,
});
export type SsoSession = z.infer<typeof SsoSession>;

/** What the full-embed page gets for its handoff code: a bearer token for the public API. */
export const EmbedSession = z.object({
  sessionToken: z.string(),
  expiresAt: Timestamp,
  absoluteExpiresAt: Timestamp,
  organizationId: z.string(),
  organizationName: z.string(),
  memberId: z.string(),
  /** The page that framed the sign-in: the only origin the page posts messages to. */
  framingOrigin: z.string(),
});
export type EmbedSession = z.infer<typeof EmbedSession>;

/** `kit`: from `POST /api/sso/jwt`; `embed`: from the full-embed sign-in (`GET /api/sso/jwt`). */
export const SessionKind = z.enum(['kit', 'embed']);
export type SessionKind = z.infer<typeof SessionKind>;

/** The calling session as the bridge sees it now: the member's current role, the limits. */
export const SessionInfo = z.object({
  kind: SessionKind,
  signedInAt: Timestamp,
  expiresAt: Timestamp,
  absoluteExpiresAt: Timestamp,
  organization: Organization,
  member: Member,
});
export type SessionInfo = z.infer<typeof SessionInfo>;

/** The next token of the same session: a fresh expiry, never past `absoluteExpiresAt`. */
export const RenewedSession = z.object({
  sessionToken: z.string(),
  expiresAt: Timestamp,
  absoluteExpiresAt: Timestamp,
});
export type RenewedSession = z.infer<typeof RenewedSession>;
