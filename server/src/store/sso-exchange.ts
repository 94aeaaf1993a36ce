// The SSO exchange's round trips, folded. An exchange needs the organization, the rate-limit
// hit, the jti claim and the membership (and, on a first sign-in, the user and membership
// created). On PostgreSQL each round trip holds a pool connection, and under concurrency the
// pool, not the CPU, sets the rate and the p99, so here they are two: the organization with the membership of the
// token's email (one read, before the signature is checked: nothing is used until it is), and
// the rate-limit hit with the jti claim (one write; the jti is only claimed when the hit is
// within the limit). A first sign-in's user and membership are one more statement.
//
// On PostgreSQL with the counters in the store, a returning member is one: the organization
// row read last time is kept with its version (`xmin`), the token is checked against it, and
// the statement that counts the hit and claims the jti first compares that version with the
// row's current one, counts and claims only when they are equal, and reads the membership in
// the same go. When the row has changed, nothing is counted or claimed and the exchange starts
// over with a fresh read. So what the exchange relies on is what is committed when it claims,
// exactly as with a read per exchange: rotation, revocation, replay protection and the limits
// stay what they were. With the counters and used jtis in Redis the script claims first, on the
// kept row's word, and one statement then checks the row, reads the membership and creates a
// first sign-in's (checkKeptOrganization); a changed row then starts the exchange over with the
// claim kept (see redisReplayGuard in sso/replay.ts).
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type Pg from 'pg';
import type { Db, Store } from './db';
import { gathered, perOwner } from './gathered';
import { MEMBER_USER_COLUMNS, type MemberWithUser } from './members';
import type { OrganizationRow } from './organizations';
import { statementNameOn } from './pg-prepared';
import { camelRow, precompiled } from './precompiled';

export type MemberWithGroups = MemberWithUser & { groups: string | null };

const ORG_WITH_MEMBER = precompiled((db: Db, orgId: string, email: string) =>
  db
    .selectFrom('organizations as o')
    .leftJoin('users as u', (join) => join.on('u.email', '=', email))
    .leftJoin('members as m', (join) =>
      join.onRef('m.organizationId', '=', 'o.id').onRef('m.userId', '=', 'u.id'),
    )
    .selectAll('o')
    .select([
      'm.id as memberId',
      'm.role as memberRole',
      'm.groups as memberGroups',
      'm.createdAt as memberCreatedAt',
      'u.id as userId',
      ...MEMBER_USER_COLUMNS,
    ])
    .where('o.id', '=', orgId),
);

type OrgWithMemberRow = OrganizationRow & {
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
};

// PostgreSQL: the same read through the function of migration 0008, whose plan the server
// keeps per connection (an unnamed statement is planned anew on every call), for a batch of
// (organization, email) pairs gathered while the last batch ran: one statement for many
// exchanges. `i` says which pair a row answers; an unknown organization has none.
const ORGS_WITH_MEMBERS_PG = `select q.i::int as i, (f.o).*, (f.m).id as member_id,
  (f.m).role as member_role, (f.m).groups as member_groups,
  (f.m).created_at as member_created_at, (f.u).id as user_id, (f.u).email as user_email,
  (f.u).full_name as user_full_name, (f.u).first_name as user_first_name,
  (f.u).last_name as user_last_name, (f.u).title as user_title,
  (f.u).avatar_url as user_avatar_url, (f.u).is_email_verified as user_is_email_verified,
  (f.u).created_at as user_created_at, f.ov as org_row_version
from unnest($1::text[], $2::text[]) with ordinality as q(org_id, email, i)
  cross join lateral bk_org_with_member(q.org_id, q.email) f`;

type OrgWithMemberPgRow = OrgWithMemberRow & { i: number; orgRowVersion: string };

interface PendingRead {
  orgId: string;
  email: string;
  resolve(row: OrgWithMemberPgRow | undefined): void;
  reject(err: unknown): void;
}

async function readBatch(pool: Pg.Pool, batch: PendingRead[]) {
  try {
    const { rows } = await pool.query({
      name: statementNameOn(pool, ORGS_WITH_MEMBERS_PG),
      text: ORGS_WITH_MEMBERS_PG,
      values: [batch.map((r) => r.orgId), batch.map((r) => r.email)],
    });
    const found = new Map<number, OrgWithMemberPgRow>();
    for (const raw of rows) {
      const row = camelRow(raw) as unknown as OrgWithMemberPgRow;
      found.set(row.i - 1, row);
    }
    for (const [i, r] of batch.entries()) r.resolve(found.get(i));
  } catch (err) {
    for (const r of batch) r.reject(err);
  }
}

const readsOn = perOwner((pool: Pg.Pool) =>
  gathered((_key: '', batch: PendingRead[]) => readBatch(pool, batch)),
);

function readOnPg(pool: Pg.Pool, orgId: string, email: string) {
  return new Promise<OrgWithMemberPgRow | undefined>((resolve, reject) =>
    readsOn(pool)('', { orgId, email, resolve, reject }),
  );
}

/** An organization row as read, with its version on PostgreSQL (the row's `xmin`). */
export interface VersionedOrganization {
  org: OrganizationRow;
  version: string;
}

const KEPT_ORGANIZATIONS = 1000;
const KNOWN_MEMBERS = 10_000;
// (organization, email) pairs last seen with a membership, per pool: a claim for one of them
// brings no user to create (a wrong guess only sends that exchange the longer way).
const knownMembersOn = perOwner(
  (_pool: Pg.Pool) => new LRUCache<string, true>({ max: KNOWN_MEMBERS }),
);
const memberKey = (orgId: string, email: string) => `${orgId}\u0000${email}`;
function noteMember(pool: Pg.Pool, orgId: string, email: string, member: unknown) {
  if (member) knownMembersOn(pool).set(memberKey(orgId, email), true);
  else knownMembersOn(pool).delete(memberKey(orgId, email));
}
const memberKnown = (pool: Pg.Pool, orgId: string, email: string) =>
  knownMembersOn(pool).has(memberKey(orgId, email));
const keptOn = perOwner(
  (_pool: Pg.Pool) => new LRUCache<string, VersionedOrganization>({ max: KEPT_ORGANIZATIONS }),
);

/**
 * The organization row this process last read from `pool` (with the exchange's read), and its
 * version then. Possibly stale: only for a caller whose write checks the version (pgHitAndClaim
 * with `ifOrgVersion`) and that reads afresh when it was.
 */
export const keptOrganization = (pool: Pg.Pool, orgId: string) => keptOn(pool).get(orgId);

/** Forgets the kept row of an organization (the check found it changed). */
export const forgetOrganization = (pool: Pg.Pool, orgId: string) => keptOn(pool).delete(orgId);

/**
 * The organization and, in the same read, the membership in it of the user with this
 * (normalized) email: `member` is undefined when that user is not a member (or unknown).
 * Undefined when the organization does not exist. On PostgreSQL the row is kept, with its
 * version, for keptOrganization.
 */
export async function findOrganizationWithMember(
  store: Pick<Store, 'db' | 'pgPool'>,
  orgId: string,
  email: string,
): Promise<{ org: OrganizationRow; member: MemberWithGroups | undefined } | undefined> {
  const { pgPool } = store;
  if (pgPool) {
    const read = await readAndKeep(pgPool, orgId, email);
    return read && { org: read.org, member: read.member };
  }
  const [row] = await ORG_WITH_MEMBER(store.db, orgId, email);
  return row && splitMember(row);
}

/** PostgreSQL: findOrganizationWithMember, with the row's version, keeping the row. */
async function readAndKeep(pool: Pg.Pool, orgId: string, email: string) {
  const row = await readOnPg(pool, orgId, email);
  if (!row) {
    forgetOrganization(pool, orgId);
    return undefined;
  }
  const { orgRowVersion: version, i: _pair, ...rest } = row;
  const { org, member } = splitMember(rest);
  keptOn(pool).set(org.id, { org, version });
  noteMember(pool, org.id, email, member);
  return { org, member, version };
}

type MemberColumns = Omit<OrgWithMemberRow, keyof OrganizationRow>;

/** A membership read with prefixed columns (`memberId`, `userEmail`…); undefined for none. */
function memberOf(orgId: string, row: MemberColumns): MemberWithGroups | undefined {
  if (row.memberId === null) return undefined;
  return {
    id: row.memberId,
    organizationId: orgId,
    userId: row.userId!,
    role: row.memberRole!,
    groups: row.memberGroups,
    createdAt: row.memberCreatedAt!,
    userEmail: row.userEmail!,
    userFullName: row.userFullName,
    userFirstName: row.userFirstName,
    userLastName: row.userLastName,
    userTitle: row.userTitle,
    userAvatarUrl: row.userAvatarUrl,
    userIsEmailVerified: row.userIsEmailVerified!,
    userCreatedAt: row.userCreatedAt!,
  };
}

function splitMember(row: OrgWithMemberRow) {
  // The organization is what is left once the membership's columns are taken out.
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
  return { org, member: memberOf(org.id, row) };
}

/** Where a rate-limit hit is counted: rate-limiter-flexible's key layout and window. */
export interface HitCounter {
  keyPrefix: string;
  windowMs: number;
  limit: number;
}

/** The hit counted (points in the window, ms until it ends) and whether the jti was fresh. */
export interface HitAndClaim {
  consumedPoints: number;
  msBeforeNext: number;
  /** False for a replay, and when the hit was past the limit (the jti is then not claimed). */
  fresh: boolean;
}

// The batch's entries ($4 jtis, $7 their expiries, $9 the organization version each relies on
// or null, $10 the email whose membership each wants or null, $11-$17 the user and membership
// each would create for that email if it has never been seen, or nulls), in arrival order. An
// entry whose version is not the organization row's current one (`cur`) is left out: nothing
// counted, nothing claimed, no row returned. The others, n of them, hit the counter at once
// with rate-limiter-flexible's arithmetic (a new window once the last one has expired; see
// api-keys.ts); each then claims its jti only when its own hit is within the limit: the r-th
// of the n is the counter's (points - n + r)-th. A claim takes over an expired entry; a live
// one means replay (as in replay.ts). An entry that claimed, for an email with no user, creates
// the user and the membership it brought (users in email order, as NEW_USERS_AND_MEMBERS
// does; one per email). One row per entry counted, with its membership, read or created.
// The statements themselves are PL/pgSQL functions (migration 0010, which holds their SQL), so
// the server keeps their plans.
const HITS_AND_CLAIMS = 'select * from bk_sso_claims($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)';
const HITS_CLAIMS_AND_NEW_MEMBERS =
  'select * from bk_sso_claims_creating($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)';

/** What a claim that relied on a kept organization row learns besides its hit. */
export interface CheckedClaim {
  /** The organization row had changed: nothing was counted or claimed. */
  stale: boolean;
  /** The membership of the claim's `email` (undefined: none), read with the claim. */
  member?: MemberWithGroups | undefined;
}

/** The user and membership a claim creates when its email has never been seen. */
export interface NewMemberProposal {
  user: NewUser;
  member: Omit<NewMember, 'organizationId'>;
}

interface PendingClaim {
  counter: HitCounter;
  counterKey: string;
  orgId: string;
  jti: string;
  expiresAt: string;
  ifOrgVersion: string | null;
  email: string | null;
  proposal: NewMemberProposal | null;
  resolve(outcome: HitAndClaim & CheckedClaim): void;
  reject(err: unknown): void;
}

type BatchRow = MemberColumns & {
  i: number;
  r: number;
  n: number;
  points: number;
  expire: string;
  claimed: boolean | null;
};

/** The statement for a batch of claims, and its values (see HITS_AND_CLAIMS). */
function claimStatement(batch: PendingClaim[], firstOf: Map<string, number>) {
  const { counter, counterKey, orgId } = batch[0]!;
  const now = new Date();
  const at = now.getTime();
  const text = batch.some((c) => c.proposal) ? HITS_CLAIMS_AND_NEW_MEMBERS : HITS_AND_CLAIMS;
  const values: unknown[] = [
    counterKey,
    at + counter.windowMs,
    at,
    // Later duplicates keep their place (and their hit) but claim nothing.
    batch.map((c, i) => (firstOf.get(c.jti) === i ? c.jti : null)),
    counter.limit,
    orgId,
    batch.map((c) => c.expiresAt),
    now.toISOString(),
    batch.map((c) => c.ifOrgVersion),
    batch.map((c) => c.email),
  ];
  if (text === HITS_CLAIMS_AND_NEW_MEMBERS) {
    const proposed = <T>(pick: (p: NewMemberProposal) => T) =>
      batch.map((c) => (c.proposal ? pick(c.proposal) : null));
    values.push(
      proposed((p) => p.user.id),
      proposed((p) => p.user.fullName),
      proposed((p) => p.user.firstName),
      proposed((p) => p.user.lastName),
      proposed((p) => p.member.id),
      proposed((p) => p.member.role),
      proposed((p) => p.member.groups),
    );
  }
  return { text, values };
}

/** Answers each claim of the batch from the row counted for it; none: the row was stale. */
function answerClaims(
  pool: Pg.Pool,
  batch: PendingClaim[],
  firstOf: Map<string, number>,
  rows: Record<string, unknown>[],
) {
  const { orgId } = batch[0]!;
  const counted = new Map<number, BatchRow>();
  for (const raw of rows) {
    const row = camelRow(raw) as BatchRow;
    counted.set(row.i - 1, row);
  }
  if (counted.size < batch.length) forgetOrganization(pool, orgId);
  for (const [i, c] of batch.entries()) {
    const row = counted.get(i);
    if (!row) {
      c.resolve({ consumedPoints: 0, msBeforeNext: 0, fresh: false, stale: true });
      continue;
    }
    const member = c.email === null ? undefined : memberOf(orgId, row);
    if (c.email !== null) noteMember(pool, orgId, c.email, member);
    c.resolve({
      consumedPoints: row.points - row.n + row.r,
      msBeforeNext: Math.max(0, Number(row.expire) - Date.now()),
      fresh: firstOf.get(c.jti) === i && row.claimed === true,
      stale: false,
      member,
    });
  }
}

/** One statement for a batch of claims on one counter and organization. */
async function sendClaims(pool: Pg.Pool, batch: PendingClaim[]) {
  try {
    // A jti twice in one batch: the first is claimed (or refused), the later ones replays.
    const firstOf = new Map<string, number>();
    for (const [i, c] of batch.entries()) if (!firstOf.has(c.jti)) firstOf.set(c.jti, i);
    const { text, values } = claimStatement(batch, firstOf);
    const { rows } = await pool.query({ name: statementNameOn(pool, text), text, values });
    answerClaims(pool, batch, firstOf, rows);
  } catch (err) {
    for (const c of batch) c.reject(err);
  }
}

/**
 * PostgreSQL with the counters in the store: one hit on `counter.keyPrefix + key` and the
 * claim of (orgId, jti), in one statement (one round trip, atomic). With `ifOrgVersion`, only
 * when the organization row's version is still that one (else `stale`, and nothing happened),
 * and with `email`, the membership of that email read in the same statement.
 *
 * Group-counted: every exchange of an organization hits the same counter row, whose lock each
 * statement holds through its commit (a WAL flush), so one at a time could pass, whatever
 * the pool size. Here at most one statement per counter is in flight per process; the hits
 * that arrive meanwhile go together in the next, which adds their number to the counter at
 * once and hands each its own place in it: the same counts, the same refusals, as one by one.
 * Across processes the row lock still orders the statements.
 */
export function pgHitAndClaim(pool: Pg.Pool) {
  // One batch per counter and organization: the statement counts and claims for one of each.
  const claimGathered = gathered((_key: string, batch: PendingClaim[]) => sendClaims(pool, batch));
  return (
    counter: HitCounter,
    key: string,
    claim: {
      orgId: string;
      jti: string;
      expiresAt: string;
      ifOrgVersion?: string | undefined;
      email?: string | undefined;
      /**
       * With `email`: what to create if that email has never been seen (and the claim holds);
       * asked only when this process has not seen a membership for it.
       */
      propose?: (() => NewMemberProposal | undefined) | undefined;
    },
  ): Promise<HitAndClaim & CheckedClaim> => {
    const counterKey = counter.keyPrefix + key;
    return new Promise<HitAndClaim & CheckedClaim>((resolve, reject) =>
      claimGathered(`${counterKey}\u0000${claim.orgId}`, {
        counter,
        counterKey,
        orgId: claim.orgId,
        jti: claim.jti,
        expiresAt: claim.expiresAt,
        ifOrgVersion: claim.ifOrgVersion ?? null,
        email: claim.email ?? null,
        proposal:
          (claim.email && !memberKnown(pool, claim.orgId, claim.email) && claim.propose?.()) ||
          null,
        resolve,
        reject,
      }),
    );
  };
}

// rate-limiter-flexible's own counting script (RateLimiterRedis), once per claim in arrival
// order, each followed by its jti's `SET NX` with its remaining lifetime only when that hit is
// within the limit: a batch of claims in one round trip, atomic, counted as one by one. KEYS:
// the counter, then one jti key per claim (a jti twice finds its key set: a replay). ARGV: the
// window in seconds, the limit, then each claim's lifetime in ms.
const HITS_AND_CLAIMS_LUA = `
redis.call('set', KEYS[1], 0, 'EX', ARGV[1], 'NX')
local out = {}
for i = 2, #KEYS do
  local consumed = redis.call('incrby', KEYS[1], 1)
  local ttl = redis.call('pttl', KEYS[1])
  if ttl == -1 then
    redis.call('expire', KEYS[1], ARGV[1])
    ttl = 1000 * ARGV[1]
  end
  local fresh = 0
  if consumed <= tonumber(ARGV[2]) then
    if redis.call('set', KEYS[i], '1', 'PX', ARGV[i + 1], 'NX') then fresh = 1 end
  end
  out[#out + 1] = consumed
  out[#out + 1] = ttl
  out[#out + 1] = fresh
end
return out`;

type WithHitsAndClaims = Redis & {
  bkHitsAndClaims(numberOfKeys: number, ...keysThenArgs: (string | number)[]): Promise<number[]>;
};

/** The Redis key of a used jti (as the Redis replay guard keeps it). */
export const redisJtiKey = (orgId: string, jti: string) => `bk:jti:${orgId}:${jti}`;

interface PendingRedisClaim {
  counter: HitCounter;
  counterKey: string;
  jtiKey: string;
  ttlMs: number;
  resolve(outcome: HitAndClaim): void;
  reject(err: unknown): void;
}

async function sendRedisBatch(redis: Redis, batch: PendingRedisClaim[]) {
  const { counter, counterKey } = batch[0]!;
  try {
    const client = redis as WithHitsAndClaims;
    if (typeof client.bkHitsAndClaims !== 'function') {
      redis.defineCommand('bkHitsAndClaims', { lua: HITS_AND_CLAIMS_LUA });
    }
    const out = await client.bkHitsAndClaims(
      batch.length + 1,
      counterKey,
      ...batch.map((c) => c.jtiKey),
      Math.ceil(counter.windowMs / 1000),
      counter.limit,
      ...batch.map((c) => c.ttlMs),
    );
    for (const [i, c] of batch.entries()) {
      const [consumed, ttl, fresh] = out.slice(i * 3, i * 3 + 3) as [number, number, number];
      c.resolve({ consumedPoints: consumed, msBeforeNext: ttl, fresh: fresh === 1 });
    }
  } catch (err) {
    for (const c of batch) c.reject(err);
  }
}

const redisClaimsOn = perOwner((redis: Redis) =>
  gathered((_key: string, batch: PendingRedisClaim[]) => sendRedisBatch(redis, batch)),
);

/**
 * Redis holding both the counters and the used jtis: the hit and the claim in one script
 * (EVALSHA, one round trip), gathered per counter as on PostgreSQL (pgHitAndClaim): the claims
 * that arrive while one script runs go together in the next. `ttlMs` is how long the jti
 * stays used.
 */
export function hitAndClaimJtiRedis(
  redis: Redis,
  counter: HitCounter,
  key: string,
  claim: { orgId: string; jti: string; ttlMs: number },
): Promise<HitAndClaim> {
  const queue = redisClaimsOn(redis);
  const counterKey = counter.keyPrefix + key;
  return new Promise((resolve, reject) =>
    queue(counterKey, {
      counter,
      counterKey,
      jtiKey: redisJtiKey(claim.orgId, claim.jti),
      ttlMs: claim.ttlMs,
      resolve,
      reject,
    }),
  );
}

// PostgreSQL with the counters and used jtis in Redis (migration 0014): after the script has
// counted and claimed on the word of a kept organization row, the statement that checks that
// row's version, reads the membership of the claim's email and, for an email never seen whose
// claim held, creates its user and membership; for a batch of them per organization.
const CHECKED_NEW_MEMBERS =
  'select * from bk_sso_members_creating($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)';

interface PendingCheck {
  version: string;
  email: string;
  proposal: NewMemberProposal;
  resolve(outcome: CheckedClaim): void;
  reject(err: unknown): void;
}

async function sendChecks(pool: Pg.Pool, orgId: string, batch: PendingCheck[]) {
  try {
    const proposed = <T>(pick: (c: PendingCheck) => T) => batch.map(pick);
    const { rows } = await pool.query({
      name: statementNameOn(pool, CHECKED_NEW_MEMBERS),
      text: CHECKED_NEW_MEMBERS,
      values: [
        orgId,
        new Date().toISOString(),
        proposed((c) => c.version),
        proposed((c) => c.email),
        proposed((c) => c.proposal.user.id),
        proposed((c) => c.proposal.user.fullName),
        proposed((c) => c.proposal.user.firstName),
        proposed((c) => c.proposal.user.lastName),
        proposed((c) => c.proposal.member.id),
        proposed((c) => c.proposal.member.role),
        proposed((c) => c.proposal.member.groups),
      ],
    });
    const current = new Map<number, MemberColumns>();
    for (const raw of rows) {
      const { i, ...row } = camelRow(raw) as MemberColumns & { i: number };
      current.set(i - 1, row);
    }
    if (current.size < batch.length) forgetOrganization(pool, orgId);
    for (const [i, c] of batch.entries()) {
      const row = current.get(i);
      if (!row) {
        c.resolve({ stale: true });
        continue;
      }
      const member = memberOf(orgId, row);
      noteMember(pool, orgId, c.email, member);
      c.resolve({ stale: false, member });
    }
  } catch (err) {
    for (const c of batch) c.reject(err);
  }
}

const checksOn = perOwner((pool: Pg.Pool) =>
  gathered((orgId: string, batch: PendingCheck[]) => sendChecks(pool, orgId, batch)),
);

/**
 * PostgreSQL, with the counters and used jtis elsewhere (Redis): once the claim is made on the
 * word of the organization row kept at `version`, whether that row is still the current one
 * (else `stale`) and the membership of `email` (undefined: none). With `propose` (asked only
 * when this process has not seen a membership for the email), the user and membership it
 * brings are created in the same statement when the email has never been seen and the row is
 * current. One round trip, gathered per organization as the claims are.
 */
export async function checkKeptOrganization(
  pool: Pg.Pool,
  orgId: string,
  version: string,
  email: string,
  propose?: () => NewMemberProposal | undefined,
): Promise<CheckedClaim> {
  const proposal = !memberKnown(pool, orgId, email) && propose?.();
  if (!proposal) {
    const read = await readAndKeep(pool, orgId, email);
    return read?.version === version ? { stale: false, member: read.member } : { stale: true };
  }
  return new Promise((resolve, reject) =>
    checksOn(pool)(orgId, { version, email, proposal, resolve, reject }),
  );
}

// First sign-ins of emails never seen: the users and their memberships in one statement, for
// a batch of them (gathered while the last one ran: one commit, one WAL flush for all). An
// email that exists already (another organization, a race, or twice in the batch) gets nothing
// written and no row back; its caller provisions in a transaction as before. Users go in email
// order, so two batches on two instances never wait on each other's emails in a circle.
const NEW_USERS_AND_MEMBERS =
  'select * from bk_new_users_and_members($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)';

interface NewUser {
  id: string;
  email: string;
  fullName: string | null;
  firstName: string | null;
  lastName: string | null;
}

interface NewMember {
  id: string;
  organizationId: string;
  role: string;
  groups: string | null;
}

interface PendingNewMember {
  user: NewUser;
  member: NewMember;
  at: string;
  resolve(created: MemberWithGroups | undefined): void;
  reject(err: unknown): void;
}

async function insertBatch(pool: Pg.Pool, batch: PendingNewMember[]) {
  try {
    const column = <T>(pick: (p: PendingNewMember) => T) => batch.map(pick);
    const { rows } = await pool.query({
      name: statementNameOn(pool, NEW_USERS_AND_MEMBERS),
      text: NEW_USERS_AND_MEMBERS,
      values: [
        column((p) => p.user.id),
        column((p) => p.user.email),
        column((p) => p.user.fullName),
        column((p) => p.user.firstName),
        column((p) => p.user.lastName),
        column((p) => p.at),
        column((p) => p.member.id),
        column((p) => p.member.organizationId),
        column((p) => p.member.role),
        column((p) => p.member.groups),
      ],
    });
    const created = new Map<number, MemberWithGroups>();
    for (const { i, ...row } of rows as (MemberWithGroups & { i: number })[]) {
      created.set(i - 1, row);
    }
    for (const [i, p] of batch.entries()) p.resolve(created.get(i));
  } catch (err) {
    for (const p of batch) p.reject(err);
  }
}

const newMembersOn = perOwner((pool: Pg.Pool) =>
  gathered((_key: '', batch: PendingNewMember[]) => insertBatch(pool, batch)),
);

// SQLite: the same in two statements run at once in one transaction (Store.writeSteps): the
// membership only for the user just inserted (a user id that exists only if this insert made
// it). When the membership was inserted, every column of both rows is one this code wrote, so
// the answer is made from them rather than read back.
const NEW_USER_SQLITE = `insert into users (id, email, full_name, first_name, last_name, title,
  avatar_url, is_email_verified, created_at) values (?, ?, ?, ?, ?, null, null, 0, ?)
  on conflict (email) do nothing returning id`;
const NEW_MEMBER_SQLITE = `insert into members (id, organization_id, user_id, role, groups, created_at)
  select ?, ?, id, ?, ?, ? from users where id = ? returning id`;

/** The membership and user rows NEW_USER_SQLITE and NEW_MEMBER_SQLITE wrote. */
const writtenMember = (user: NewUser, member: NewMember, at: string): MemberWithGroups => ({
  id: member.id,
  organizationId: member.organizationId,
  userId: user.id,
  role: member.role,
  groups: member.groups,
  createdAt: at,
  userEmail: user.email,
  userFullName: user.fullName,
  userFirstName: user.firstName,
  userLastName: user.lastName,
  userTitle: null,
  userAvatarUrl: null,
  userIsEmailVerified: 0,
  userCreatedAt: at,
});

type SqliteNewMember = Pick<PendingNewMember, 'user' | 'member' | 'at' | 'resolve'>;
const sqliteTurns = new WeakMap<NonNullable<Store['writeSteps']>, SqliteNewMember[]>();

/**
 * SQLite: the first sign-ins of one turn of the event loop in one transaction (two statements
 * each), as the jti claims of a turn are (replay.ts). Each is answered with its membership, or
 * undefined when its email exists already; if the transaction fails, or a transaction holds the
 * connection, every one of them is undefined and provisions on its own, so one bad row answers
 * only for itself.
 */
function sqliteNewMembers(writeSteps: NonNullable<Store['writeSteps']>, item: SqliteNewMember) {
  const turn = sqliteTurns.get(writeSteps);
  if (turn) {
    turn.push(item);
    return;
  }
  const batch = [item];
  sqliteTurns.set(writeSteps, batch);
  setImmediate(() => {
    sqliteTurns.delete(writeSteps);
    let rows: unknown[][] | undefined;
    try {
      rows = writeSteps(
        batch.flatMap(({ user, member, at }) => [
          {
            sql: NEW_USER_SQLITE,
            params: [user.id, user.email, user.fullName, user.firstName, user.lastName, at],
          },
          {
            sql: NEW_MEMBER_SQLITE,
            params: [member.id, member.organizationId, member.role, member.groups, at, user.id],
          },
        ]),
      );
    } catch {
      rows = undefined;
    }
    for (const [i, p] of batch.entries()) {
      p.resolve(rows?.[i * 2 + 1]?.[0] ? writtenMember(p.user, p.member, p.at) : undefined);
    }
  });
}

/**
 * Creates the user and their membership at once (one statement on PostgreSQL, gathered with
 * the others arriving meanwhile; one synchronous transaction on SQLite), or returns undefined with nothing written when a user with this email
 * exists (or, on SQLite, while a transaction holds the connection): the caller then provisions
 * in a transaction.
 */
export async function insertNewUserAndMember(
  store: Pick<Store, 'pgPool' | 'writeSteps'>,
  user: NewUser,
  member: NewMember,
  at: string,
): Promise<MemberWithGroups | undefined> {
  const { pgPool, writeSteps } = store;
  if (!pgPool) {
    return writeSteps
      ? new Promise((resolve) => sqliteNewMembers(writeSteps, { user, member, at, resolve }))
      : undefined;
  }
  const queue = newMembersOn(pgPool);
  return new Promise((resolve, reject) => queue('', { user, member, at, resolve, reject }));
}
