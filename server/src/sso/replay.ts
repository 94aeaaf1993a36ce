import type { Redis } from 'ioredis';
import type Pg from 'pg';
import { type Limiter, limiterFault, type RateLimitOutcome } from '../rate-limit';
import type { Store } from '../store/db';
import { precompiled } from '../store/precompiled';
import {
  type CheckedClaim,
  checkKeptOrganization,
  hitAndClaimJtiRedis,
  keptOrganization,
  type NewMemberProposal,
  pgHitAndClaim,
  redisJtiKey,
  type VersionedOrganization,
} from '../store/sso-exchange';

// Taken over only when the stored entry has expired; a live one means replay.
const claimJti = precompiled((db, orgId: string, jti: string, expiresAt: string, at: string) =>
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

/** Remembers used `jti`s until their token expires, shared by every bridge instance. */
export interface ReplayGuard {
  /** True the first time a (orgId, jti) is seen before `expiresAt`; false for a replay. */
  consume(orgId: string, jti: string, expiresAt: Date): Promise<boolean>;
  /**
   * One hit on `limiter` under `key`, then `consume` only when the hit is within the limit, in
   * one round trip; undefined (nothing counted or claimed) when the limiter keeps its counters
   * elsewhere. `fresh` is false for a replay and past the limit.
   */
  consumeCountingHit?(
    orgId: string,
    jti: string,
    expiresAt: Date,
    limiter: Limiter,
    key: string,
    check?: ClaimCheck,
  ): Promise<CountedClaim | undefined>;
  /**
   * The organization row last read, with its version, when consumeCountingHit with `limiter`
   * can check that version (`check.ifOrgVersion`); undefined otherwise.
   */
  keptOrganization?(orgId: string, limiter: Limiter): VersionedOrganization | undefined;
  /**
   * Gives back a jti this process claimed (consumeCountingHit said `fresh`) and has not used:
   * the exchange that claimed it was refused on a fresh read (see `CountedClaim.stands`).
   */
  release?(orgId: string, jti: string): Promise<void>;
}

/**
 * What consumeCountingHit did. `stale`: the kept organization row had changed. Then either
 * nothing was counted or claimed (the store checks the row in the same statement), or, with
 * `stands`, the hit was counted and the claim made (in Redis, before the store could check the
 * row): they stand, and the exchange that starts over on a fresh read must use them rather
 * than count and claim again, and release the claim if it does not use it.
 */
export type CountedClaim = RateLimitOutcome & {
  fresh: boolean;
  stands?: boolean;
} & Partial<CheckedClaim>;

/**
 * For consumeCountingHit: count and claim only if the organization row is still at
 * `ifOrgVersion` (else `stale`: nothing happened, or what did `stands`), and read the
 * membership of `email` with it.
 */
export interface ClaimCheck {
  ifOrgVersion: string;
  email: string;
  /** The user and membership to create with the claim if `email` has never been seen. */
  propose?: () => NewMemberProposal | undefined;
}

/** The limiter's own failure (503, fail closed) for an error of the combined round trip. */
async function counting<T>(limiter: Limiter, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw limiterFault(limiter.backend, err);
  }
}

interface Claim {
  orgId: string;
  jti: string;
  expiresAt: string;
  at: string;
  resolve(fresh: boolean): void;
  reject(err: unknown): void;
}

/**
 * Kept in the store: a primary key on (organization, jti); expired rows are reused and purged.
 *
 * On SQLite (one connection) claims are group-committed: those made while the event loop
 * runs are written in one transaction, committed before any of them is answered; each still
 * sees the ones before it, so a jti used twice in one batch is a replay too: a commit per
 * exchange would be its costliest step.
 */
export function storeReplayGuard(store: Store, now: () => Date): ReplayGuard {
  const { db } = store;
  const groupCommit = store.engine === 'sqlite';
  let calls = 0;
  let batch: Claim[] | undefined;

  const purgeDue = (at: string) =>
    ++calls % 200 === 0 ? db.deleteFrom('ssoJti').where('expiresAt', '<', at).execute() : undefined;

  async function commit(claims: Claim[]) {
    try {
      const bound = claims.map((c) => claimJti.bind(db, c.orgId, c.jti, c.expiresAt, c.at));
      // Synchronously when the connection is free; else in turn, through Kysely.
      const written = store
        .writeBatch?.(
          bound[0]!.sql,
          bound.map((b) => b.parameters),
        )
        ?.map((rows) => rows.length > 0);
      const fresh =
        written ??
        (await db.transaction().execute(async (tx) => {
          const out: boolean[] = [];
          for (const c of claims) {
            out.push((await claimJti(tx, c.orgId, c.jti, c.expiresAt, c.at)).length > 0);
          }
          return out;
        }));
      for (const [i, c] of claims.entries()) c.resolve(fresh[i]!);
    } catch (err) {
      for (const c of claims) c.reject(err);
    }
  }

  const { pgPool } = store;
  const hitAndClaim = pgPool ? pgHitAndClaim(pgPool) : undefined;
  // The limiter keeps its counters in this store's PostgreSQL, next to the used jtis.
  const countsHere = ({ backend }: Limiter) =>
    backend.kind === 'postgres' && backend.pool === pgPool;
  return {
    async consumeCountingHit(orgId, jti, expiresAt, limiter, key, check) {
      if (!hitAndClaim || !countsHere(limiter)) return undefined;
      await purgeDue(now().toISOString());
      const claim = { orgId, jti, expiresAt: expiresAt.toISOString(), ...check };
      return counting(limiter, () => hitAndClaim(limiter, key, claim));
    },
    keptOrganization(orgId, limiter) {
      return pgPool && hitAndClaim && countsHere(limiter)
        ? keptOrganization(pgPool, orgId)
        : undefined;
    },
    async consume(orgId, jti, expiresAt) {
      const at = now().toISOString();
      await purgeDue(at);
      if (!groupCommit) {
        return (await claimJti(db, orgId, jti, expiresAt.toISOString(), at)).length > 0;
      }
      return new Promise<boolean>((resolve, reject) => {
        if (!batch) {
          const claims: Claim[] = [];
          batch = claims;
          setImmediate(() => {
            batch = undefined;
            void commit(claims);
          });
        }
        batch.push({ orgId, jti, expiresAt: expiresAt.toISOString(), at, resolve, reject });
      });
    },
  };
}

/**
 * Kept in Redis (`REDIS_URL`): `SET NX` with the token's remaining lifetime.
 *
 * With the store on PostgreSQL (`pgPool`) and the limiter's counters in this Redis, an exchange
 * may rely on the organization row this process read last: the script counts and claims, then
 * one statement checks the row's version and reads the membership, creating a first sign-in's
 * user and membership in the same go (two round trips, where a read first made three). When
 * the row has changed, what the script did stands (`stands`) and the exchange starts over on a
 * fresh read with it.
 */
export function redisReplayGuard(redis: Redis, now: () => Date, pgPool?: Pg.Pool): ReplayGuard {
  const ttlOf = (expiresAt: Date) => Math.max(1000, expiresAt.getTime() - now().getTime());
  const countsHere = ({ backend }: Limiter) => backend.kind === 'redis' && backend.client === redis;
  const release = async (orgId: string, jti: string) => {
    await redis.del(redisJtiKey(orgId, jti));
  };
  return {
    async consumeCountingHit(orgId, jti, expiresAt, limiter, key, check) {
      if (!countsHere(limiter)) return undefined;
      const claim = { orgId, jti, ttlMs: ttlOf(expiresAt) };
      const counted = await counting(limiter, () =>
        hitAndClaimJtiRedis(redis, limiter, key, claim),
      );
      if (!check || !pgPool) return counted;
      try {
        const { ifOrgVersion, email, propose } = check;
        const checked = await checkKeptOrganization(
          pgPool,
          orgId,
          ifOrgVersion,
          email,
          counted.fresh ? propose : undefined,
        );
        return { ...counted, ...checked, stands: checked.stale };
      } catch (err) {
        // The store failed the exchange: the token stays good for a retry.
        if (counted.fresh) await release(orgId, jti).catch(() => undefined);
        throw err;
      }
    },
    keptOrganization(orgId, limiter) {
      return pgPool && countsHere(limiter) ? keptOrganization(pgPool, orgId) : undefined;
    },
    release,
    async consume(orgId, jti, expiresAt) {
      const ttl = ttlOf(expiresAt);
      const key = redisJtiKey(orgId, jti);
      return (await redis.set(key, '1', 'PX', ttl, 'NX')) === 'OK';
    },
  };
}
