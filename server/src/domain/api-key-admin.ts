import { insertApiKey } from '../store/api-keys';
import type { Db } from '../store/db';
import { ensureUser } from '../store/users';
import { generateApiKey } from './api-keys';
import { newId } from './ids';
import { normalizeEmail } from './members';

/** Creates the user if needed and a new API key for it; the key itself is returned once. */
export async function createApiKeyForEmail(
  db: Db,
  input: {
    email: string;
    fullName?: string | undefined;
    name?: string | undefined;
    expiresAt?: Date | undefined;
  },
  now: Date,
) {
  const at = now.toISOString();
  const { user } = await ensureUser(db, {
    id: newId('usr'),
    email: normalizeEmail(input.email),
    fullName: input.fullName,
    firstName: input.fullName?.split(/\s+/)[0],
    createdAt: at,
  });
  const { key, keyHash, hint } = generateApiKey();
  const id = newId('key');
  await insertApiKey(db, {
    id,
    userId: user.id,
    name: input.name ?? null,
    keyHash,
    hint,
    createdAt: at,
    expiresAt: input.expiresAt?.toISOString() ?? null,
  });
  return { id, key, userId: user.id };
}
