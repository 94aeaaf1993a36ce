// What the SSO exchange asks of a store, whatever the engine: sso/exchange.ts decides (token
// checks, role, the answer), a module per engine stores (sqlite.ts, postgres.ts,
// postgres-redis.ts; index.ts picks one).
import type { RateLimitOutcome } from '../../rate-limit';
import type { Db } from '../db';
import type { MemberWithGroups } from '../members';
import type { OrganizationRow } from '../organizations';

export type { MemberWithGroups };

/** An organization with the membership in it of one email, read together. */
export interface OrganizationRead {
  org: OrganizationRow;
  /** The membership of the email read with it; undefined when that email has none. */
  member: MemberWithGroups | undefined;
}

/** A hit counted on the organization's SSO counter, and whether the jti was claimed with it. */
export interface CountedClaim {
  outcome: RateLimitOutcome;
  /**
   * True when the jti was claimed by this call (or none was given and the hit is within the
   * limit); false for a jti used before and still live, and for any hit past the limit (the
   * jti is then left unused).
   */
  fresh: boolean;
}

/** What a first sign-in creates: the user (unless the email exists) and the membership. */
export interface FirstSignIn {
  orgId: string;
  user: {
    id: string;
    email: string;
    fullName: string | null;
    firstName: string | null;
    lastName: string | null;
  };
  member: { id: string; role: string; groups: string | null };
  at: Date;
}

export type Provisioned =
  | { status: 'created' | 'existing'; member: MemberWithGroups }
  /** The organization no longer exists: nothing was created. */
  | { status: 'no_organization' };

export interface SsoExchangeStore {
  /**
   * The organization and the membership in it of `email` (normalized), in one read; without an
   * email, the organization alone. Undefined when the organization does not exist.
   */
  read(orgId: string, email: string | undefined): Promise<OrganizationRead | undefined>;
  /**
   * One hit on the organization's SSO counter (counted in windows, rate-limiter-flexible's
   * arithmetic) and, only when that hit is within the limit, the claim of `jti`: a jti is
   * accepted once until `expiresAt`. Without a jti, the hit alone. Throws the limiter's 503 when
   * the counters or the used jtis can't be reached (fail closed).
   */
  countAndClaim(orgId: string, jti?: { jti: string; expiresAt: Date }): Promise<CountedClaim>;
  /** Gives back a jti claimed by an exchange that failed afterwards: the token stays usable. */
  release(orgId: string, jti: string): Promise<void>;
  /**
   * Makes the email a member of the organization in one transaction: the user is created unless
   * the email exists, the membership unless one exists, and the store's `MembersAdded` hook runs
   * in that transaction with the memberships it created (none when it created none). Safe when
   * sign-ins of one email race.
   */
  provision(signIn: FirstSignIn): Promise<Provisioned>;
}

/**
 * What runs in the transaction that created memberships of one organization (the outbox's
 * `member.added`, so an event exists exactly when its membership does).
 */
export type MembersAdded = (tx: Db, orgId: string, members: MemberWithGroups[]) => Promise<void>;

/** The organization counter key of the SSO limit (`sso:<organization id>`). */
export const ssoCounterKey = (orgId: string) => `sso:${orgId}`;

/** Columns of a membership read next to its organization, prefixed (`memberId`, `userEmail`…). */
export interface PrefixedMember {
  memberId: string | null;
  memberRole: string | null;
  memberGroups: string | null;
  memberCreatedAt: string | null;
  userId: string | null;
  userEmail: string | null;
  userFullName: string | null;
  userFirstName: string | null;
  userLastName: string | null;
  userTitle: string | null;
  userAvatarUrl: string | null;
  userIsEmailVerified: number | null;
  userCreatedAt: string | null;
}

/** Splits a row of an organization with a prefixed membership; member undefined for none. */
export function splitOrganizationRead(row: OrganizationRow & PrefixedMember): OrganizationRead {
  const {
    memberId,
    memberRole,
    memberGroups,
    memberCreatedAt,
    userId,
    userEmail,
    userFullName,
    userFirstName,
    userLastName,
    userTitle,
    userAvatarUrl,
    userIsEmailVerified,
    userCreatedAt,
    ...org
  } = row;
  if (memberId === null) return { org, member: undefined };
  return {
    org,
    member: {
      id: memberId,
      organizationId: org.id,
      userId: userId!,
      role: memberRole!,
      groups: memberGroups,
      createdAt: memberCreatedAt!,
      userEmail: userEmail!,
      userFullName,
      userFirstName,
      userLastName,
      userTitle,
      userAvatarUrl,
      userIsEmailVerified: userIsEmailVerified!,
      userCreatedAt: userCreatedAt!,
    },
  };
}
