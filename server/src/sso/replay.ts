import type { Redis } from 'ioredis';
import type { Db } from '../store/db';

/** Remembers used `jti`s until their token expires, shared by every bridge instance. */
export interface ReplayGuard {
  /** True the first time a (orgId, jti) is seen before `expiresAt`; false for a replay. */
  consume(orgId: string, jti: string, expiresAt: Date): Promise<boolean>;
}

/** Kept in the store: a primary key on (organization, jti); expired rows are reused and purged. */
export function storeReplayGuard(db: Db, now: () => Date): ReplayGuard {
  let calls = 0;
  return {
    async consume(orgId, jti, expiresAt) {
      const at = now().toISOString();
      if (++calls % 200 === 0) {
        await db.deleteFrom('ssoJti').where('expiresAt', '<', at).execute();
      }
      const row = await db
        .insertInto('ssoJti')
        .values({ organizationId: orgId, jti, expiresAt: expiresAt.toISOString() })
        .onConflict((oc) =>
          oc
            .columns(['organizationId', 'jti'])
            .doUpdateSet({ expiresAt: expiresAt.toISOString() })
            // Only an expired entry may be taken over; a live one means replay.
            .where('ssoJti.expiresAt', '<', at),
        )
        .returning('jti')
        .executeTakeFirst();
      return row !== undefined;
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
