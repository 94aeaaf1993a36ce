import type { Db } from './db';
import type { ApiKeysTable } from './schema';

export type NewApiKey = Omit<ApiKeysTable, 'lastUsedAt' | 'revokedAt'>;

export const insertApiKey = (db: Db, key: NewApiKey) =>
  db
    .insertInto('apiKeys')
    .values({ ...key, lastUsedAt: null, revokedAt: null })
    .execute();

/** The key row for a digest, whatever its state; the caller checks revocation and expiry. */
export const findApiKeyByHash = (db: Db, keyHash: string) =>
  db
    .selectFrom('apiKeys')
    .select(['id', 'userId', 'expiresAt', 'revokedAt', 'lastUsedAt'])
    .where('keyHash', '=', keyHash)
    .executeTakeFirst();

export const touchApiKey = (db: Db, id: string, at: string) =>
  db.updateTable('apiKeys').set({ lastUsedAt: at }).where('id', '=', id).execute();

export const listApiKeys = (db: Db, userId: string) =>
  db
    .selectFrom('apiKeys')
    .select(['id', 'name', 'hint', 'createdAt', 'lastUsedAt', 'expiresAt', 'revokedAt'])
    .where('userId', '=', userId)
    .orderBy('id')
    .execute();

export async function revokeApiKey(db: Db, id: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('apiKeys')
    .set({ revokedAt: at })
    .where('id', '=', id)
    .where('revokedAt', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
