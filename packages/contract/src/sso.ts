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
  expiresAt: Timestamp,
  organization: Organization,
  member: Member,
});
export type SsoSession = z.infer<typeof SsoSession>;

/** What the full-embed page gets for its cookie: a bearer token for the public API. */
export const EmbedSession = z.object({
  sessionToken: z.string(),
  expiresAt: Timestamp,
  organizationId: z.string(),
  memberId: z.string(),
});
export type EmbedSession = z.infer<typeof EmbedSession>;
