import { type KeyObject, randomBytes } from 'node:crypto';
import { MAX_SSO_TOKEN_LENGTH, type SsoClaims } from '@bridgekit/contract';
import { z } from 'zod';
import { decodeJsonObject, hs256Key, hs256Matches, signatureBytes } from './hs256';

/**
 * Verification of the SSO token a host backend signs with an organization's jwtSecret: a
 * JWT, HS256 only, with `email`, `orgId`, `iat` and `exp` required, a lifetime of at most an
 * hour and a single-use `jti` when present. Every failure is a `reason` for the log; callers
 * answer all of them with one generic 401, so a caller learns nothing about which one it was.
 *
 * The checks are the ones jose's `jwtVerify` makes for these options (header, algorithm,
 * signature, required and registered claims, in its order and with its 30 s tolerance; the
 * tests sign with jose and jsonwebtoken), written out over node:crypto's synchronous HMAC
 * (hs256.ts says why). One algorithm, one key type, a fixed claim set: nothing else to choose.
 */

/** A jwtSecret, or the HMAC key already made from it. */
export type OrgSecret = string | KeyObject;

export interface SsoTokenDeps {
  /**
   * The organization's jwtSecret, or its secrets current first (after a rotation, the previous
   * one while its grace lasts), or null if the organization is unknown. `unverifiedEmail` is
   * the token's `email` claim before any check (for a caller that reads with the organization
   * what it will need once the token checks out; never to be trusted before).
   */
  findOrgSecret(
    orgId: string,
    unverifiedEmail?: unknown,
  ): Promise<OrgSecret | readonly OrgSecret[] | null>;
  /**
   * Records a jti until `expiresAt`; false when it was already used. `claims` are the token's,
   * checked (everything but the jti itself).
   */
  consumeJti(orgId: string, jti: string, expiresAt: Date, claims: SsoClaims): Promise<boolean>;
  now(): Date;
}

export type SsoTokenResult = { ok: true; claims: SsoClaims } | { ok: false; reason: string };

export const SSO_CLOCK_TOLERANCE_SECONDS = 30;
export const SSO_MAX_LIFETIME_SECONDS = 3600;

const MAX_ORG_ID_LENGTH = 255;
const SEGMENT = /^[A-Za-z0-9_-]+$/;
const SIGNATURE = /^[A-Za-z0-9_-]*$/;
const REQUIRED_CLAIMS = ['email', 'orgId', 'iat', 'exp'] as const;

// Verified against when the organization is unknown, so that path still costs one HMAC.
const dummyKey = hs256Key(randomBytes(32));

const ClaimsCheck = z.object({
  email: z.string().max(254).pipe(z.email()),
  orgId: z.string().min(1).max(MAX_ORG_ID_LENGTH),
  iat: z.number(),
  exp: z.number(),
  firstName: z.string().max(200).optional(),
  lastName: z.string().max(200).optional(),
  role: z.enum(['ADMIN', 'MEMBER']).optional(),
  groups: z.array(z.string().max(255)).max(100).optional(),
  jti: z.string().min(1).max(255).optional(),
});

type Failure = Extract<SsoTokenResult, { ok: false }>;
const failure = (reason: string): Failure => ({ ok: false, reason });
const isFailure = (value: object): value is Failure => 'ok' in value && value.ok === false;

/**
 * The `orgId` claim of a token, read without verifying anything: only to decide which
 * organization's allow-list answers CORS for the response (never to trust the token).
 */
export function unverifiedOrgId(token: unknown): string | undefined {
  return unverifiedClaims(token)?.orgId;
}

/** `unverifiedOrgId` with the token's `email` claim as it stands (unchecked too). */
export function unverifiedClaims(token: unknown): { orgId: string; email: unknown } | undefined {
  if (typeof token !== 'string' || token.length > MAX_SSO_TOKEN_LENGTH) return undefined;
  const claims = decodeJsonObject(token.split('.', 2)[1] ?? '');
  const orgId = claims?.orgId;
  return typeof orgId === 'string' && orgId.length > 0 && orgId.length <= MAX_ORG_ID_LENGTH
    ? { orgId, email: claims?.email }
    : undefined;
}

/** A well-formed HS256 token's parts, its claims still unverified. */
interface Unverified {
  signingInput: string;
  signature: string;
  claims: Record<string, unknown>;
}

/** The parts of a well-formed HS256 token, or the failure of a malformed one. */
function readUnverified(token: string): Unverified | Failure {
  if (typeof token !== 'string' || token.length === 0) return failure('malformed');
  if (token.length > MAX_SSO_TOKEN_LENGTH) return failure('too_long');
  const [header = '', payload = '', signature = '', ...extra] = token.split('.');
  // An empty signature is let through to the alg check, so `alg: none` is named as such.
  if (
    extra.length > 0 ||
    !SEGMENT.test(header) ||
    !SEGMENT.test(payload) ||
    !SIGNATURE.test(signature)
  ) {
    return failure('malformed');
  }
  const protectedHeader = decodeJsonObject(header);
  if (!protectedHeader) return failure('malformed');
  // Exact match: 'nOnE', 'hs256' and every other alg stop here, before any key lookup.
  if (protectedHeader.alg !== 'HS256') return failure('alg_not_allowed');
  // Critical extensions (RFC 7515 4.1.11) are not implemented, so a token naming one is
  // refused, as jose refuses one it does not know.
  if ('crit' in protectedHeader) return failure('not_supported');
  const claims = decodeJsonObject(payload);
  if (!claims) return failure('malformed');
  return { signingInput: `${header}.${payload}`, signature, claims };
}

/** jose's checks of the registered claims for our options, with its reasons and order. */
function checkRegisteredClaims(claims: Record<string, unknown>, nowSeconds: number) {
  for (const claim of REQUIRED_CLAIMS) {
    if (!(claim in claims)) return failure(`missing_claim:${claim}`);
  }
  const { iat, nbf, exp } = claims;
  if (iat !== undefined && typeof iat !== 'number') return failure('invalid_claim:iat');
  if (nbf !== undefined) {
    if (typeof nbf !== 'number') return failure('invalid_claim:nbf');
    if (nbf > nowSeconds + SSO_CLOCK_TOLERANCE_SECONDS) return failure('invalid_claim:nbf');
  }
  if (exp !== undefined) {
    if (typeof exp !== 'number') return failure('invalid_claim:exp');
    if (exp <= nowSeconds - SSO_CLOCK_TOLERANCE_SECONDS) return failure('expired');
  }
  return undefined;
}

type CheckedClaims = z.infer<typeof ClaimsCheck>;

/** The claims' shape and times, past what jose checked; a failure or the checked claims. */
function checkClaims(
  verified: Record<string, unknown>,
  unverifiedOrgId: unknown,
  now: Date,
): CheckedClaims | Failure {
  const checked = ClaimsCheck.safeParse(verified);
  if (!checked.success) {
    const field = checked.error.issues[0]?.path[0];
    return failure(`invalid_claim:${String(field ?? 'unknown')}`);
  }
  const claims = checked.data;
  if (claims.orgId !== unverifiedOrgId) return failure('invalid_claim:orgId');
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (claims.iat > nowSeconds + SSO_CLOCK_TOLERANCE_SECONDS) return failure('iat_in_future');
  if (claims.exp <= claims.iat) return failure('invalid_claim:exp');
  if (claims.exp - claims.iat > SSO_MAX_LIFETIME_SECONDS) return failure('lifetime_too_long');
  return claims;
}

/** Allow-list: unknown claims (aud, sub, custom) are accepted but not passed on. */
function knownClaims(claims: CheckedClaims): SsoClaims {
  const result: SsoClaims = {
    email: claims.email,
    orgId: claims.orgId,
    iat: claims.iat,
    exp: claims.exp,
  };
  if (claims.firstName !== undefined) result.firstName = claims.firstName;
  if (claims.lastName !== undefined) result.lastName = claims.lastName;
  if (claims.role !== undefined) result.role = claims.role;
  if (claims.groups !== undefined) result.groups = claims.groups;
  if (claims.jti !== undefined) result.jti = claims.jti;
  return result;
}

/**
 * The signature checked with each secret, all of them and to the end, so the time taken does
 * not say which one matched.
 */
function signedByAny(token: Unverified, secrets: readonly OrgSecret[]): boolean {
  const signature = signatureBytes(token.signature);
  let matched = false;
  for (const secret of secrets) {
    const key = typeof secret === 'string' ? hs256Key(secret) : secret;
    if (hs256Matches(key, token.signingInput, signature)) matched = true;
  }
  return matched;
}

/**
 * Verifies an SSO token: HS256 with the organization's jwtSecret (as UTF-8 bytes), the
 * required claims, a lifetime of at most one hour, 30 s clock tolerance and single-use
 * `jti`. Never throws for a bad token; errors of `deps` (store down) do propagate.
 */
export async function verifySsoToken(token: string, deps: SsoTokenDeps): Promise<SsoTokenResult> {
  const unverified = readUnverified(token);
  if (isFailure(unverified)) return unverified;
  const unverifiedOrgId = unverified.claims.orgId;

  const now = deps.now();
  const orgIdUsable =
    typeof unverifiedOrgId === 'string' &&
    unverifiedOrgId.length > 0 &&
    unverifiedOrgId.length <= MAX_ORG_ID_LENGTH;
  const secret = orgIdUsable
    ? await deps.findOrgSecret(unverifiedOrgId as string, unverified.claims.email)
    : null;
  if (secret === null) {
    signedByAny(unverified, [dummyKey]);
    if (orgIdUsable) return failure('unknown_org');
    return failure(unverifiedOrgId === undefined ? 'missing_claim:orgId' : 'invalid_claim:orgId');
  }

  const secrets: readonly OrgSecret[] = Array.isArray(secret) ? secret : [secret as OrgSecret];
  if (!signedByAny(unverified, secrets)) return failure('bad_signature');
  const registered = checkRegisteredClaims(unverified.claims, Math.floor(now.getTime() / 1000));
  if (registered) return registered;

  const checked = checkClaims(unverified.claims, unverifiedOrgId, now);
  if (isFailure(checked)) return checked;
  if (checked.jti !== undefined) {
    // Kept past exp by the tolerance: the token is acceptable until then.
    const keepUntil = new Date((checked.exp + SSO_CLOCK_TOLERANCE_SECONDS) * 1000);
    if (!(await deps.consumeJti(checked.orgId, checked.jti, keepUntil, knownClaims(checked))))
      return failure('jti_replayed');
  }
  return { ok: true, claims: knownClaims(checked) };
}
