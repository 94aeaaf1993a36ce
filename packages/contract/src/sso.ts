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

export const SsoBrowserQuery = z.strictObject({ jwt: SsoToken });

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

/** What the full-embed page gets for its cookie: a bearer token for the public API. */
export const EmbedSession = z.object({
  sessionToken: z.string(),
  expiresAt: Timestamp,
  absoluteExpiresAt: Timestamp,
  organizationId: z.string(),
  memberId: z.string(),
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
