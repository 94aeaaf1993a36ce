import type { Redis } from 'ioredis';
import type { Store } from '../store/db';
import { precompiled } from '../store/precompiled';

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
 * sees the ones before it, so a jti used twice in one batch is a replay too. A commit per
 * exchange was the costliest step of an SSO exchange.
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

  return {
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

/** Kept in Redis (`REDIS_URL`): `SET NX` with the token's remaining lifetime. */
export function redisReplayGuard(redis: Redis, now: () => Date): ReplayGuard {
  return {
    async consume(orgId, jti, expiresAt) {
      const ttl = Math.max(1000, expiresAt.getTime() - now().getTime());
      const key = `bk:jti:${orgId}:${jti}`;
      return (await redis.set(key, '1', 'PX', ttl, 'NX')) === 'OK';
    },
  };
}
