import type { KeyObject } from 'node:crypto';
import type { SsoClaims } from '@bridgekit/contract';
import { ApiError } from '../api-error';
import type { Deps } from '../deps';
import { newId } from '../domain/ids';
import {
  JWT_SECRET_FIELD,
  PREVIOUS_JWT_SECRET_FIELD,
  previousSecretLive,
} from '../domain/jwt-secret';
import { normalizeEmail } from '../domain/members';
import type { RateLimitOutcome, RateLimitVerdict } from '../rate-limit';
import { type MemberWithGroups, type MemberWithUser, updateSignInDetails } from '../store/members';
import type { OrganizationRow } from '../store/organizations';
import { hmacKeyCache } from './hmac-keys';
import type { SessionKind } from './session-token';
import { SSO_MAX_LIFETIME_SECONDS, verifySsoToken } from './token';

/**
 * One detail for every failure; the precise reason goes to the log only. The one exception is
 * a lifetime over the limit: it is checked once the signature holds, so saying so (and the
 * limit) tells nothing to anyone without the secret, and tells its host what to fix.
 */
export const invalidSsoToken = (reason: string) =>
  reason === 'lifetime_too_long'
    ? new ApiError(
        'Unauthorized',
        `The SSO token's lifetime (exp - iat) is over the limit of ${SSO_MAX_LIFETIME_SECONDS} seconds`,
        {
          code: 'sso_token_lifetime_too_long',
          params: { limit: SSO_MAX_LIFETIME_SECONDS },
          cause: new Error(`sso: ${reason}`),
        },
      )
    : new ApiError('Unauthorized', 'Invalid or expired SSO token', {
        code: 'sso_token_invalid',
        cause: new Error(`sso: ${reason}`),
      });

const hasNul = (value: string | undefined) => value?.includes('\u0000') ?? false;

const MAX_ORG_KEYS = 1000;
const orgKeysBySecretBox = new WeakMap<Deps['secretBox'], ReturnType<typeof hmacKeyCache>>();

function keyCache(deps: Deps) {
  let keys = orgKeysBySecretBox.get(deps.secretBox);
  if (!keys) {
    keys = hmacKeyCache(MAX_ORG_KEYS);
    orgKeysBySecretBox.set(deps.secretBox, keys);
  }
  return keys;
}

/**
 * The organization's HS256 keys, current first, then the one a rotation replaced while its
 * grace lasts (judged at `deps.now()`, never after). Each is decrypted and imported once per
 * sealed secret (a rotated or re-encrypted secret is another sealed value, so it is never
 * served stale). The plaintext secret does not stay on the heap. Kept per
 * SecretBox: only a box that can open a secret is ever handed its key.
 */
function orgHmacKeys(deps: Deps, org: OrganizationRow): KeyObject[] {
  const keys = keyCache(deps);
  const key = (field: string, sealed: string) =>
    keys(`${org.id}\u0000${field}\u0000${sealed}`, () =>
      deps.secretBox.open(sealed, org.id, field),
    );
  const current = key(JWT_SECRET_FIELD, org.jwtSecretSealed);
  if (!previousSecretLive(org, deps.now()) || !org.previousJwtSecretSealed) return [current];
  return [current, key(PREVIOUS_JWT_SECRET_FIELD, org.previousJwtSecretSealed)];
}

export interface VerifyHostTokenOptions {
  /**
   * Checks that run once the signature and claims check out and before the token's `jti` is
   * used: a refusal here (origin, full embed off) leaves the token usable where it is allowed.
   * The hit is counted either way, and a 429 comes before the refusal.
   */
  admit?: (org: OrganizationRow) => Promise<void> | void;
  /**
   * Takes the verdict of the hit on the SSO rate limit (`sso:<organization id>`) counted
   * before the `jti` is used (the HTTP layer's: it sets the headers, and past the limit throws
   * the 429, the `jti` unused).
   */
  rateLimit: (verdict: RateLimitVerdict) => void;
  /** Called with the organization row the answer rests on (undefined: no such organization). */
  onOrganization?: (org: OrganizationRow | undefined) => void;
}

/** The organization a token names and the membership of its email, read together. */
export interface OrgAndMember {
  org: OrganizationRow;
  /** The email the membership was read for, and the membership (undefined: none). */
  member?: { email: string; row: MemberWithGroups | undefined };
}

/**
 * The organization a token names, with the membership of its email, in one read; before the
 * token is verified (nothing read is used unless it is). Undefined for an unknown organization.
 */
export async function readTokenOrganization(
  deps: Deps,
  orgId: string,
  unverifiedEmail: unknown,
): Promise<OrgAndMember | undefined> {
  // No organization id holds U+0000 (and PostgreSQL can't compare one): unknown.
  if (hasNul(orgId)) return undefined;
  const email =
    typeof unverifiedEmail === 'string' && !hasNul(unverifiedEmail)
      ? normalizeEmail(unverifiedEmail)
      : undefined;
  const read = await deps.sso.read(orgId, email);
  if (!read) return undefined;
  return email === undefined
    ? { org: read.org }
    : { org: read.org, member: { email, row: read.member } };
}

/** A verified token: its organization, its claims, and the membership read with them. */
export interface VerifiedHostToken {
  org: OrganizationRow;
  claims: SsoClaims;
  member?: OrgAndMember['member'];
}

/**
 * Verifies a host-signed token and returns the organization it names: the organization is read
 * (with the membership of the token's email), the signature and claims checked, `admit` asked,
 * then one hit counted on the organization's SSO limit with the claim of the jti (one round
 * trip where the store keeps both).
 */
export async function verifyHostToken(
  deps: Deps,
  token: string,
  options: VerifyHostTokenOptions,
): Promise<VerifiedHostToken> {
  let read: OrgAndMember | undefined;
  let counted = false;
  const result = await verifySsoToken(token, {
    findOrgSecret: async (orgId, unverifiedEmail) => {
      read = await readTokenOrganization(deps, orgId, unverifiedEmail);
      options.onOrganization?.(read?.org);
      return read ? orgHmacKeys(deps, read.org) : null;
    },
    consumeJti: async (_orgId, jti, expiresAt) => {
      if (hasNul(jti)) throw invalidSsoToken('invalid_claim:jti');
      counted = true;
      return admitAndCount(deps, options, read!.org, { jti, expiresAt });
    },
    now: deps.now,
  });
  if (!result.ok || !read) throw invalidSsoToken(result.ok ? 'unknown_org' : result.reason);
  if (!counted) await admitAndCount(deps, options, read.org);
  const { firstName, lastName, groups } = result.claims;
  // PostgreSQL text can't store U+0000: refused like any other bad claim, on both engines.
  if ([firstName, lastName, ...(groups ?? [])].some(hasNul)) {
    throw invalidSsoToken('invalid_claim:nul');
  }
  const { org, member } = read as OrgAndMember;
  return { org, claims: result.claims, member };
}

/**
 * `admit`, then the hit (with the claim of `jti` when the token has one, only within the
 * limit): whether the jti was fresh. A refusal of `admit` still counts its hit, and a 429
 * takes precedence over it.
 */
async function admitAndCount(
  deps: Deps,
  options: VerifyHostTokenOptions,
  org: OrganizationRow,
  jti?: { jti: string; expiresAt: Date },
): Promise<boolean> {
  const verdictOf = (counted: { outcome: RateLimitOutcome }) =>
    deps.limits.sso.verdict(counted.outcome);
  try {
    await options.admit?.(org);
  } catch (refusal) {
    options.rateLimit(verdictOf(await deps.sso.countAndClaim(org.id)));
    throw refusal;
  }
  const counted = await deps.sso.countAndClaim(org.id, jti);
  options.rateLimit(verdictOf(counted));
  return counted.fresh;
}

/** The user's names after a sign-in: a name claim replaces that name; an absent one keeps it. */
function namesAfter(
  claims: SsoClaims,
  user: { firstName: string | null; lastName: string | null; fullName: string | null },
) {
  if (claims.firstName === undefined && claims.lastName === undefined) return user;
  const firstName = claims.firstName ?? user.firstName;
  const lastName = claims.lastName ?? user.lastName;
  const fullName = [firstName, lastName].filter(Boolean).join(' ') || null;
  return { firstName, lastName, fullName };
}

/**
 * Just-in-time provisioning: the user on first sight of the email, the membership on first
 * sign-in to the organization (role from the token only then; `member.added` recorded with
 * it). On every sign-in the token's `firstName`/`lastName` update the user (and so `fullName`)
 * and its `groups`, when present, replace the membership's. Safe when many sign-ins for one
 * email race. `verified.member` is the membership read with the organization. When the store
 * fails here, the jti the exchange used is given back, so the token can be tried again.
 */
export async function provisionMember(
  deps: Deps,
  verified: VerifiedHostToken,
): Promise<MemberWithUser> {
  const { org, claims } = verified;
  try {
    return await provisionOrThrow(deps, verified);
  } catch (err) {
    if (claims.jti !== undefined) {
      await deps.sso.release(org.id, claims.jti).catch(() => undefined);
    }
    throw err;
  }
}

async function provisionOrThrow(deps: Deps, verified: VerifiedHostToken) {
  const { org, claims, member: read } = verified;
  const email = normalizeEmail(claims.email);
  const groups = claims.groups ? JSON.stringify(claims.groups) : null;
  let member = read?.email === email ? read.row : (await deps.sso.read(org.id, email))?.member;
  if (!member) {
    const names = namesAfter(claims, { firstName: null, lastName: null, fullName: null });
    const provisioned = await deps.sso.provision({
      orgId: org.id,
      user: { id: newId('usr'), email, ...names },
      member: { id: newId('mem'), role: claims.role ?? 'MEMBER', groups },
      at: deps.now(),
    });
    // Deleted since it was read: as for an organization never known.
    if (provisioned.status === 'no_organization') throw invalidSsoToken('unknown_org');
    member = provisioned.member;
  }
  // Returning members (the common case) need no write unless their names or groups changed.
  const before = {
    firstName: member.userFirstName,
    lastName: member.userLastName,
    fullName: member.userFullName,
  };
  const after = namesAfter(claims, before);
  const sameNames =
    after.firstName === before.firstName &&
    after.lastName === before.lastName &&
    after.fullName === before.fullName;
  if (sameNames && (groups === null || member.groups === groups)) return member;
  await updateSignInDetails(deps.store.db, member, after, groups);
  return {
    ...member,
    userFirstName: after.firstName,
    userLastName: after.lastName,
    userFullName: after.fullName,
    groups: groups ?? member.groups,
  };
}

/** Starts a session for the member: `kit` for the kit's exchange, `embed` for full embed. */
export async function issueSession(
  deps: Deps,
  member: MemberWithUser,
  start: { kind: SessionKind; framingOrigin?: string } = { kind: 'kit' },
) {
  const { token, claims } = await deps.sessions.issue({
    memberId: member.id,
    userId: member.userId,
    orgId: member.organizationId,
    role: member.role as 'ADMIN' | 'MEMBER',
    kind: start.kind,
    framingOrigin: start.framingOrigin ?? null,
  });
  return { sessionToken: token, expiresAt: claims.expiresAt, claims };
}
