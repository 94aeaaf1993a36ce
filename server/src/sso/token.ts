import { MAX_SSO_TOKEN_LENGTH, type SsoClaims } from '@bridgekit/contract';
import { decodeJwt, decodeProtectedHeader, errors, jwtVerify } from 'jose';
import { z } from 'zod';
import { importHmacKey } from './hmac-keys';

/**
 * Verification of the SSO token a host backend signs with an organization's jwtSecret: a
 * JWT, HS256 only, with `email`, `orgId`, `iat` and `exp` required, a lifetime of at most an
 * hour and a single-use `jti` when present. Every failure is a `reason` for the log; callers
 * answer all of them with one generic 401, so a caller learns nothing about which one it was.
 */

/** A jwtSecret, or the HMAC key already imported from it. */
export type OrgSecret = string | CryptoKey;

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
  /** Records a jti until `expiresAt`; false when it was already used. */
  consumeJti(orgId: string, jti: string, expiresAt: Date): Promise<boolean>;
  now(): Date;
}

export type SsoTokenResult = { ok: true; claims: SsoClaims } | { ok: false; reason: string };

export const SSO_CLOCK_TOLERANCE_SECONDS = 30;
export const SSO_MAX_LIFETIME_SECONDS = 3600;

const MAX_ORG_ID_LENGTH = 255;
const SEGMENT = /^[A-Za-z0-9_-]+$/;
const SIGNATURE = /^[A-Za-z0-9_-]*$/;

// Verified against when the organization is unknown, so that path still costs one HMAC.
const dummyKey = importHmacKey(crypto.getRandomValues(new Uint8Array(32)));

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

/** Stable reasons for jose failures, by `err.code`, never by message text. */
function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTClaimValidationFailed) {
    return error.reason === 'missing'
      ? `missing_claim:${error.claim}`
      : `invalid_claim:${error.claim}`;
  }
  const code = error instanceof errors.JOSEError ? error.code : undefined;
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return 'expired';
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return 'bad_signature';
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return 'alg_not_allowed';
    case 'ERR_JOSE_NOT_SUPPORTED':
      return 'not_supported';
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
      return 'malformed';
    default:
      return 'verification_failed';
  }
}

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
  try {
    const { orgId, email } = decodeJwt(token);
    return typeof orgId === 'string' && orgId.length > 0 && orgId.length <= MAX_ORG_ID_LENGTH
      ? { orgId, email }
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The unverified `orgId` and `email` claims of a well-formed HS256 token, or the failure of a
 * malformed one.
 */
function readUnverified(token: string): { orgId: unknown; email: unknown } | Failure {
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
  try {
    // Exact match: jose would reject other algs too, but 'nOnE' never reaches a key lookup.
    if (decodeProtectedHeader(token).alg !== 'HS256') return failure('alg_not_allowed');
    const { orgId, email } = decodeJwt(token);
    return { orgId, email };
  } catch {
    return failure('malformed');
  }
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

type VerifyOptions = Parameters<typeof jwtVerify>[2];

/**
 * jose's verification with each secret, all at once and to the end, so the time taken does not
 * say which one matched. The answer is the matching secret's (a success, or why its token is
 * refused: expired, say); `bad_signature` only when none matched.
 */
async function verifyWithAny(
  token: string,
  secrets: readonly OrgSecret[],
  options: VerifyOptions,
): Promise<{ payload: Record<string, unknown> } | Failure> {
  const attempts = await Promise.all(
    secrets.map(async (secret) => {
      try {
        const key = typeof secret === 'string' ? await importHmacKey(secret) : secret;
        return { payload: (await jwtVerify(token, key, options)).payload };
      } catch (error) {
        return failure(reasonOf(error));
      }
    }),
  );
  const matched = attempts.find((a) => 'payload' in a || a.reason !== 'bad_signature');
  return matched ?? attempts[0] ?? failure('bad_signature');
}

/**
 * Verifies an SSO token: HS256 with the organization's jwtSecret (as UTF-8 bytes), the
 * required claims, a lifetime of at most one hour, 30 s clock tolerance and single-use
 * `jti`. Never throws for a bad token; errors of `deps` (store down) do propagate.
 */
export async function verifySsoToken(token: string, deps: SsoTokenDeps): Promise<SsoTokenResult> {
  const unverified = readUnverified(token);
  if (isFailure(unverified)) return unverified;
  const unverifiedOrgId = unverified.orgId;

  const now = deps.now();
  const options = {
    algorithms: ['HS256'],
    clockTolerance: SSO_CLOCK_TOLERANCE_SECONDS,
    currentDate: now,
    requiredClaims: ['email', 'orgId', 'iat', 'exp'],
  };

  const orgIdUsable =
    typeof unverifiedOrgId === 'string' &&
    unverifiedOrgId.length > 0 &&
    unverifiedOrgId.length <= MAX_ORG_ID_LENGTH;
  const secret = orgIdUsable
    ? await deps.findOrgSecret(unverifiedOrgId as string, unverified.email)
    : null;
  if (secret === null) {
    await jwtVerify(token, await dummyKey, options).catch(() => undefined);
    if (orgIdUsable) return failure('unknown_org');
    return failure(unverifiedOrgId === undefined ? 'missing_claim:orgId' : 'invalid_claim:orgId');
  }

  const secrets: readonly OrgSecret[] = Array.isArray(secret) ? secret : [secret as OrgSecret];
  const verified = await verifyWithAny(token, secrets, options);
  if (!('payload' in verified)) return verified;

  const checked = checkClaims(verified.payload, unverifiedOrgId, now);
  if (isFailure(checked)) return checked;
  if (checked.jti !== undefined) {
    // Kept past exp by the tolerance: the token is acceptable until then.
    const keepUntil = new Date((checked.exp + SSO_CLOCK_TOLERANCE_SECONDS) * 1000);
    if (!(await deps.consumeJti(checked.orgId, checked.jti, keepUntil)))
      return failure('jti_replayed');
  }
  return { ok: true, claims: knownClaims(checked) };
}
