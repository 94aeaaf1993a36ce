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
import { findMemberByEmail, findMemberByUser, type MemberWithUser } from '../store/members';
import { findOrganizationById, type OrganizationRow } from '../store/organizations';
import { ensureUser } from '../store/users';
import { hmacKeyCache } from './hmac-keys';
import type { SessionKind } from './session-token';
import { verifySsoToken } from './token';

// One detail for every failure; the precise reason goes to the log only.
export const invalidSsoToken = (reason: string) =>
  new ApiError('Unauthorized', 'Invalid or expired SSO token', {
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
 * served stale). Non-extractable: the plaintext secret does not stay in memory. Kept per
 * SecretBox: only a box that can open a secret is ever handed its key.
 */
function orgHmacKeys(deps: Deps, org: OrganizationRow): Promise<CryptoKey>[] {
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
  /** The organization the token names, when the caller has already read it. */
  known?: OrganizationRow | undefined;
  /**
   * Runs once the signature and claims check out and before the token's `jti` is used: a
   * refusal here (origin, full embed off, rate limit) leaves the token usable where it is
   * allowed.
   */
  admit?: (org: OrganizationRow) => Promise<void> | void;
}

/** Verifies a host-signed token and returns the organization it names. */
export async function verifyHostToken(
  deps: Deps,
  token: string,
  options: VerifyHostTokenOptions = {},
): Promise<{ org: OrganizationRow; claims: SsoClaims }> {
  const { known, admit } = options;
  let org: OrganizationRow | undefined;
  let admitted = false;
  const admitOnce = async () => {
    if (admitted || !org) return;
    admitted = true;
    await admit?.(org);
  };
  const result = await verifySsoToken(token, {
    findOrgSecret: async (orgId) => {
      // No organization id holds U+0000 (and PostgreSQL can't compare one): unknown.
      if (hasNul(orgId)) return null;
      org = known?.id === orgId ? known : await findOrganizationById(deps.store.db, orgId);
      return org ? Promise.all(orgHmacKeys(deps, org)) : null;
    },
    consumeJti: async (orgId, jti, expiresAt) => {
      if (hasNul(jti)) throw invalidSsoToken('invalid_claim:jti');
      await admitOnce();
      return deps.replay.consume(orgId, jti, expiresAt);
    },
    now: deps.now,
  });
  if (!result.ok || !org) throw invalidSsoToken(result.ok ? 'unknown_org' : result.reason);
  await admitOnce();
  const { firstName, lastName, groups } = result.claims;
  // PostgreSQL text can't store U+0000: refused like any other bad claim, on both engines.
  if ([firstName, lastName, ...(groups ?? [])].some(hasNul)) {
    throw invalidSsoToken('invalid_claim:nul');
  }
  return { org, claims: result.claims };
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
 * Just-in-time provisioning in one transaction: the user on first sight of the email, the
 * membership on first sign-in to the organization (role from the token only then). On every
 * sign-in the token's `firstName`/`lastName` update the user (and so `fullName`) and its
 * `groups`, when present, replace the membership's. Safe when many sign-ins for one email
 * race, on either engine.
 */
export async function provisionMember(
  deps: Deps,
  org: OrganizationRow,
  claims: SsoClaims,
): Promise<MemberWithUser> {
  const email = normalizeEmail(claims.email);
  // Returning members (the common case) need no write unless their names or groups changed.
  const existing = await findMemberByEmail(deps.store.db, org.id, email);
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
    await tx
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
