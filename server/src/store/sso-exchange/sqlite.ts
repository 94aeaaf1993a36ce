// SQLite: one process, so the SSO counter is the limiter's own (in memory, or Redis when
// configured: rate-limiter-flexible counts) and the used jtis are rows of `sso_jti`. Plain
// Kysely and SQL both engines take: postgres.ts reuses its provisioning and release, and a
// PostgreSQL store whose limiter counts elsewhere uses it whole (see index.ts).
import type { Limiter } from '../../rate-limit';
import type { Db } from '../db';
import { addMemberships, MEMBER_USER_COLUMNS, type MemberWithGroups } from '../members';
import { findOrganizationById } from '../organizations';
import { precompiled } from '../precompiled';
import {
  type FirstSignIn,
  type MembersAdded,
  type PrefixedMember,
  type Provisioned,
  type SsoExchangeStore,
  splitOrganizationRead,
  ssoCounterKey,
} from './types';

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

/**
 * A jti is accepted once until it expires: the insert takes over only a stored entry that has
 * expired; a live one means replay (no row returned).
 */
export const claimJti = precompiled(
  (db: Db, orgId: string, jti: string, expiresAt: string, at: string) =>
    db
      .insertInto('ssoJti')
      .values({ organizationId: orgId, jti, expiresAt })
      .onConflict((oc) =>
        oc
          .columns(['organizationId', 'jti'])
          .doUpdateSet({ expiresAt })
          .where('ssoJti.expiresAt', '<', at),
      )
      .returning('jti'),
);

/** Expired jtis are deleted once every this many claims. */
export const PURGE_EVERY = 200;

interface PendingProvision {
  signIn: FirstSignIn;
  resolve(provisioned: Provisioned): void;
  reject(err: unknown): void;
}

const requestOf = ({ signIn: { orgId, user, member, at } }: PendingProvision) => {
  const createdAt = at.toISOString();
  return { user: { ...user, createdAt }, member: { ...member, organizationId: orgId, createdAt } };
};

/**
 * A batch of first sign-ins in one transaction (one commit for all); if it fails, each goes
 * again alone, so one that can't be written answers for itself.
 */
async function sendProvisions(db: Db, onAdded: MembersAdded, batch: PendingProvision[]) {
  const answer = (p: PendingProvision, added: Awaited<ReturnType<typeof addMemberships>>[0]) =>
    p.resolve(
      added
        ? { status: added.created ? 'created' : 'existing', member: added.member }
        : { status: 'no_organization' },
    );
  try {
    const added = await addMemberships(db, batch.map(requestOf), async (tx, members) => {
      const byOrg = new Map<string, MemberWithGroups[]>();
      for (const m of members)
        byOrg.set(m.organizationId, [...(byOrg.get(m.organizationId) ?? []), m]);
      for (const [orgId, ms] of byOrg) await onAdded(tx, orgId, ms);
    });
    for (const [i, p] of batch.entries()) answer(p, added[i]);
  } catch (err) {
    if (batch.length === 1) {
      batch[0]!.reject(err);
      return;
    }
    await Promise.all(batch.map((p) => sendProvisions(db, onAdded, [p])));
  }
}

/**
 * Items of one turn of the event loop, and those arriving while the last batch runs, go to
 * `send` together, one batch in flight at a time (on SQLite a transaction runs without yielding,
 * so only the turn gathers; on PostgreSQL the batch's round trips do too). `send` settles every
 * item of its batch.
 */
function turnBatches<T>(send: (batch: T[]) => Promise<void>): (item: T) => void {
  let queued: T[] = [];
  let running = false;
  const flush = async () => {
    const batch = queued;
    queued = [];
    running = true;
    await send(batch);
    running = false;
    if (queued.length > 0) setImmediate(flush);
  };
  return (item) => {
    queued.push(item);
    if (queued.length === 1 && !running) setImmediate(flush);
  };
}

interface PendingClaim {
  orgId: string;
  jti: string;
  expiresAt: string;
  at: string;
  resolve(fresh: boolean): void;
  reject(err: unknown): void;
}

/**
 * The claims of a batch in one transaction: one commit (a WAL append, or a flush on
 * PostgreSQL) for the batch rather than one per exchange. The same jti twice in a batch: the
 * first claims it, the later ones find it live (replays). If the transaction fails, each claim
 * goes again alone.
 */
async function sendClaims(db: Db, batch: PendingClaim[]) {
  const claimOn = async (on: Db, c: PendingClaim) =>
    (await claimJti(on, c.orgId, c.jti, c.expiresAt, c.at)).length > 0;
  if (batch.length === 1) {
    const c = batch[0]!;
    await claimOn(db, c).then(c.resolve, c.reject);
    return;
  }
  try {
    const fresh = await db.transaction().execute(async (tx) => {
      const out: boolean[] = [];
      for (const c of batch) out.push(await claimOn(tx, c));
      return out;
    });
    for (const [i, c] of batch.entries()) c.resolve(fresh[i]!);
  } catch {
    await Promise.all(batch.map((c) => sendClaims(db, [c])));
  }
}

export function sqliteSsoExchange(
  db: Db,
  limiter: Limiter,
  now: () => Date,
  onAdded: MembersAdded,
): SsoExchangeStore {
  let claims = 0;
  const provide = turnBatches((batch: PendingProvision[]) => sendProvisions(db, onAdded, batch));
  const claim = turnBatches((batch: PendingClaim[]) => sendClaims(db, batch));
  return {
    async read(orgId, email) {
      if (email === undefined) {
        const org = await findOrganizationById(db, orgId);
        return org && { org, member: undefined };
      }
      const [row] = await ORG_WITH_MEMBER(db, orgId, email);
      return row && splitOrganizationRead(row as typeof row & PrefixedMember);
    },
    async countAndClaim(orgId, jti) {
      const outcome = await limiter.consume(ssoCounterKey(orgId));
      if (outcome.consumedPoints > limiter.limit) return { outcome, fresh: false };
      if (!jti) return { outcome, fresh: true };
      const at = now().toISOString();
      if (++claims % PURGE_EVERY === 0) {
        await db.deleteFrom('ssoJti').where('expiresAt', '<', at).execute();
      }
      const fresh = await new Promise<boolean>((resolve, reject) =>
        claim({ orgId, jti: jti.jti, expiresAt: jti.expiresAt.toISOString(), at, resolve, reject }),
      );
      return { outcome, fresh };
    },
    async release(orgId, jti) {
      await db
        .deleteFrom('ssoJti')
        .where('organizationId', '=', orgId)
        .where('jti', '=', jti)
        .execute();
    },
    provision(signIn) {
      return new Promise((resolve, reject) => provide({ signIn, resolve, reject }));
    },
  };
}
