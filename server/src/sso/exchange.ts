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
import { findMemberByEmail, findMemberByUser, type MemberWithUser } from '../store/members';
import { findOrganizationById, type OrganizationRow } from '../store/organizations';
import {
  findOrganizationWithMember,
  insertNewUserAndMember,
  type MemberWithGroups,
  type NewMemberProposal,
} from '../store/sso-exchange';
import { ensureUser } from '../store/users';
import { memberData, recordEvent } from '../webhooks/events';
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
   */
  admit?: (org: OrganizationRow) => Promise<void> | void;
  /**
   * Counts one hit on the SSO rate limit (`sso:<organization id>`) before the `jti` is used,
   * and hands its verdict to this function (the HTTP layer's: it sets the headers, and past the
   * limit throws the 429, which then comes before any refusal of `admit`, the `jti` unused). Where the limiter keeps its counters next to the
   * used `jti`s (PostgreSQL, or Redis), the hit and the claim are one round trip.
   */
  rateLimit?: (verdict: RateLimitVerdict) => void;
  /**
   * Called with the organization row an attempt relies on (undefined: no such organization),
   * once the token names one; when an attempt starts over on a fresh read it is called again,
   * so the last call is the row the answer rests on.
   */
  onOrganization?: (org: OrganizationRow | undefined) => void;
}

/** The organization a token names and the membership of its email, read together. */
export interface OrgAndMember {
  org: OrganizationRow;
  /** Undefined when the email had no membership; the email it was read for. */
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
  if (typeof unverifiedEmail !== 'string' || hasNul(unverifiedEmail)) {
    const org = await findOrganizationById(deps.store.db, orgId);
    return org ? { org } : undefined;
  }
  const email = normalizeEmail(unverifiedEmail);
  const found = await findOrganizationWithMember(deps.store, orgId, email);
  return found ? { org: found.org, member: { email, row: found.member } } : undefined;
}

/**
 * A hit counted and a jti claimed by an attempt whose kept organization row then turned out
 * to have changed (with Redis, see redisReplayGuard): the attempt on the fresh read uses them
 * instead of counting and claiming again, and gives a fresh claim back if it is refused first.
 */
interface HeldClaim {
  orgId: string;
  jti: string;
  outcome: RateLimitOutcome & { fresh: boolean };
  used: boolean;
}

/**
 * An attempt that relied on the organization row this process read last found it changed, or
 * could not have it checked: the exchange starts over with a fresh read. Nothing was counted or
 * claimed by the attempt, or what was is `held`.
 */
class ReadAfresh extends Error {
  constructor(readonly held?: HeldClaim) {
    super('read afresh');
  }
}

type VerifiedHostToken = {
  org: OrganizationRow;
  claims: SsoClaims;
  member?: OrgAndMember['member'];
};

/**
 * Verifies a host-signed token and returns the organization it names. Where the replay guard
 * can check an organization row's version in the statement that claims the jti (PostgreSQL,
 * see store/sso-exchange.ts), the first attempt uses the row read last time instead of reading
 * it again; if that row turns out to have changed (or the token is refused on its word), the
 * exchange runs again on a fresh read, so no answer rests on a row that is not current.
 */
export async function verifyHostToken(
  deps: Deps,
  token: string,
  options: VerifyHostTokenOptions = {},
): Promise<VerifiedHostToken> {
  let held: HeldClaim | undefined;
  if (options.rateLimit) {
    try {
      return await verifyOnce(deps, token, options, true);
    } catch (err) {
      if (!(err instanceof ReadAfresh)) throw err;
      held = err.held;
    }
  }
  try {
    return await verifyOnce(deps, token, options, false, held);
  } catch (err) {
    // Refused on the fresh read before the claim was used: the token stays good where allowed.
    if (held?.outcome.fresh && !held.used) {
      await deps.replay.release?.(held.orgId, held.jti).catch(() => undefined);
    }
    throw err;
  }
}

/** What one attempt has learned so far. */
interface Attempt {
  mayUseKept: boolean;
  read: OrgAndMember | undefined;
  // The kept row this attempt relies on, the email it reads the membership of, and whether the
  // statement that checks the row's version has run (its verdict then stands).
  kept: { version: string; email: string } | undefined;
  checked: boolean;
  admitted: boolean;
  held: HeldClaim | undefined;
}

type JtiClaim = { jti: string; expiresAt: Date; claims: SsoClaims };

async function verifyOnce(
  deps: Deps,
  token: string,
  options: VerifyHostTokenOptions,
  mayUseKept: boolean,
  held?: HeldClaim,
): Promise<VerifiedHostToken> {
  const attempt: Attempt = {
    mayUseKept,
    read: undefined,
    kept: undefined,
    checked: false,
    admitted: false,
    held,
  };
  const result = await verifySsoToken(token, {
    findOrgSecret: (orgId, unverifiedEmail) =>
      findOrgKeys(deps, options, attempt, orgId, unverifiedEmail),
    consumeJti: async (_orgId, jti, expiresAt, claims) => {
      if (hasNul(jti)) {
        if (attempt.kept) throw new ReadAfresh();
        throw invalidSsoToken('invalid_claim:jti');
      }
      attempt.admitted = true;
      return admitAndClaim(deps, options, attempt, { jti, expiresAt, claims });
    },
    now: deps.now,
  });
  // A refusal on the kept row's word (its keys, say) is only given after a fresh read.
  if (!result.ok && attempt.kept && !attempt.checked) throw new ReadAfresh();
  if (!result.ok || !attempt.read) {
    throw invalidSsoToken(result.ok ? 'unknown_org' : result.reason);
  }
  if (!attempt.admitted) await admitAndClaim(deps, options, attempt);
  const { firstName, lastName, groups } = result.claims;
  // PostgreSQL text can't store U+0000: refused like any other bad claim, on both engines.
  if ([firstName, lastName, ...(groups ?? [])].some(hasNul)) {
    throw invalidSsoToken('invalid_claim:nul');
  }
  const verified: OrgAndMember = attempt.read;
  return { org: verified.org, claims: result.claims, member: verified.member };
}

/**
 * The keys of the organization a token names: from the row kept with its version where the
 * attempt may use it, else from a fresh read (with the membership of the token's email).
 */
async function findOrgKeys(
  deps: Deps,
  options: VerifyHostTokenOptions,
  attempt: Attempt,
  orgId: string,
  unverifiedEmail: unknown,
) {
  const usable =
    attempt.mayUseKept &&
    !hasNul(orgId) &&
    typeof unverifiedEmail === 'string' &&
    !hasNul(unverifiedEmail);
  const row = usable ? deps.replay.keptOrganization?.(orgId, deps.limits.sso) : undefined;
  if (row) {
    attempt.kept = { version: row.version, email: normalizeEmail(unverifiedEmail as string) };
    attempt.read = { org: row.org };
  } else {
    attempt.read = await readTokenOrganization(deps, orgId, unverifiedEmail);
  }
  options.onOrganization?.(attempt.read?.org);
  return attempt.read ? orgHmacKeys(deps, attempt.read.org) : null;
}

// The checks, then the hit (with the claim where they are one round trip); a refusal of the
// checks still counts the hit, and a 429 takes precedence over it.
async function admitAndClaim(
  deps: Deps,
  options: VerifyHostTokenOptions,
  attempt: Attempt,
  claim?: JtiClaim,
): Promise<boolean> {
  const { admit, rateLimit } = options;
  const { org } = attempt.read!;
  // Without a claim nothing would check the kept row: read it.
  if (attempt.kept && !claim) throw new ReadAfresh();
  if (rateLimit) {
    const limiter = deps.limits.sso;
    try {
      await admit?.(org);
    } catch (refusal) {
      if (attempt.kept) throw new ReadAfresh();
      // The hit was counted already (a 429 still comes first).
      const held = heldFor(attempt, org.id, claim);
      rateLimit(held ? limiter.verdict(held.outcome) : await limiter.hit(`sso:${org.id}`));
      throw refusal;
    }
    if (claim) {
      const fresh = await countAndClaim(deps, rateLimit, attempt, org, claim);
      if (fresh !== undefined) return fresh;
    }
    if (attempt.kept) throw new ReadAfresh();
    rateLimit(await limiter.hit(`sso:${org.id}`));
  } else {
    await admit?.(org);
  }
  return claim ? deps.replay.consume(org.id, claim.jti, claim.expiresAt) : true;
}

/** The hit and claim of an earlier attempt for this organization and jti, if it holds them. */
function heldFor(attempt: Attempt, orgId: string, claim: JtiClaim | undefined) {
  const { held } = attempt;
  return held?.orgId === orgId && (!claim || held.jti === claim.jti) ? held : undefined;
}

/**
 * The hit and the claim in one round trip, where the replay guard keeps the counters (with the
 * kept row's version checked, and the membership read, in the same go): whether the jti was
 * fresh, or undefined where the guard can't.
 */
async function countAndClaim(
  deps: Deps,
  rateLimit: (verdict: RateLimitVerdict) => void,
  attempt: Attempt,
  org: OrganizationRow,
  claim: JtiClaim,
): Promise<boolean | undefined> {
  const limiter = deps.limits.sso;
  const { kept } = attempt;
  const held = heldFor(attempt, org.id, claim);
  if (held) {
    held.used = true;
    rateLimit(limiter.verdict(held.outcome));
    return held.outcome.fresh;
  }
  const counted = await deps.replay.consumeCountingHit?.(
    org.id,
    claim.jti,
    claim.expiresAt,
    limiter,
    `sso:${org.id}`,
    kept && {
      ifOrgVersion: kept.version,
      email: kept.email,
      propose: () => newMemberProposal(claim.claims),
    },
  );
  if (counted?.stale) {
    throw new ReadAfresh(
      counted.stands ? { orgId: org.id, jti: claim.jti, outcome: counted, used: false } : undefined,
    );
  }
  if (!counted) return undefined;
  if (kept) {
    attempt.checked = true;
    attempt.read = { org, member: { email: kept.email, row: counted.member } };
  }
  rateLimit(limiter.verdict(counted));
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
 * The user and membership a first sign-in with these claims creates (names and role from the
 * token, groups when given), for a store that creates them with the claim; undefined when a
 * name or group holds U+0000 (refused after verification, see verifyHostToken).
 */
function newMemberProposal(claims: SsoClaims): NewMemberProposal | undefined {
  const { firstName, lastName, groups } = claims;
  if ([firstName, lastName, ...(groups ?? [])].some(hasNul)) return undefined;
  return {
    user: {
      id: newId('usr'),
      email: normalizeEmail(claims.email),
      ...namesAfter(claims, { firstName: null, lastName: null, fullName: null }),
    },
    member: {
      id: newId('mem'),
      role: claims.role ?? 'MEMBER',
      groups: groups ? JSON.stringify(groups) : null,
    },
  };
}

/**
 * Just-in-time provisioning in one transaction: the user on first sight of the email, the
 * membership on first sign-in to the organization (role from the token only then). On every
 * sign-in the token's `firstName`/`lastName` update the user (and so `fullName`) and its
 * `groups`, when present, replace the membership's. Safe when many sign-ins for one email
 * race, on either engine. `read` is the membership read with the organization
 * (readTokenOrganization), when it was.
 */
export async function provisionMember(
  deps: Deps,
  org: OrganizationRow,
  claims: SsoClaims,
  read?: OrgAndMember['member'],
): Promise<MemberWithUser> {
  const email = normalizeEmail(claims.email);
  // Returning members (the common case) need no write unless their names or groups changed.
  const existing =
    read?.email === email ? read.row : await findMemberByEmail(deps.store.db, org.id, email);
  const groups = claims.groups ? JSON.stringify(claims.groups) : null;
  if (existing) {
    const before = {
      firstName: existing.userFirstName,
      lastName: existing.userLastName,
      fullName: existing.userFullName,
    };
    const after = namesAfter(claims, before);
    const sameNames =
      after.firstName === before.firstName &&
      after.lastName === before.lastName &&
      after.fullName === before.fullName;
    if (sameNames && (groups === null || existing.groups === groups)) return existing;
  }

  const at = deps.now().toISOString();
  // No membership read with the organization: most often an email never seen, created at once.
  if (read?.email === email && !read.row) {
    const names = namesAfter(claims, { firstName: null, lastName: null, fullName: null });
    const created = await insertNewUserAndMember(
      deps.store,
      { id: newId('usr'), email, ...names },
      { id: newId('mem'), organizationId: org.id, role: claims.role ?? 'MEMBER', groups },
      at,
    );
    if (created) return created;
  }
  return deps.store.db.transaction().execute(async (tx) => {
    const created = namesAfter(claims, { firstName: null, lastName: null, fullName: null });
    const { user, created: isNew } = await ensureUser(tx, {
      id: newId('usr'),
      email,
      ...created,
      createdAt: at,
    });
    if (!isNew) {
      const names = namesAfter(claims, user);
      if (
        names.firstName !== user.firstName ||
        names.lastName !== user.lastName ||
        names.fullName !== user.fullName
      ) {
        await tx.updateTable('users').set(names).where('id', '=', user.id).execute();
      }
    }
    const inserted = await tx
      .insertInto('members')
      .values({
        id: newId('mem'),
        organizationId: org.id,
        userId: user.id,
        role: claims.role ?? 'MEMBER',
        groups,
        createdAt: at,
      })
      .onConflict((oc) => oc.columns(['organizationId', 'userId']).doNothing())
      .returning('id')
      .execute();
    if (groups !== null) {
      await tx
        .updateTable('members')
        .set({ groups })
        .where('organizationId', '=', org.id)
        .where('userId', '=', user.id)
        .execute();
    }
    const member = await findMemberByUser(tx, org.id, user.id);
    if (!member) throw new Error('membership missing after provisioning');
    if (inserted.length > 0) {
      await recordEvent(tx, org.id, 'member.added', memberData(member), deps.now());
    }
    return member;
  });
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
