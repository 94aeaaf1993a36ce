import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApiKeyForEmail } from '../../server/src/domain/api-key-admin';
import { openStore } from '../../server/src/store/db';

/** What several bridge processes must share to act as one: the data and the secrets. */
export interface BridgeData {
  dataDir: string;
  databaseUrl: string | undefined;
  secretKey: string;
  sessionSecret: string;
}

/** A fresh temp data dir and fresh secrets; on PostgreSQL, pass the database's URL. */
export function newBridgeData(databaseUrl?: string): BridgeData {
  return {
    dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'bk-bridge-')),
    databaseUrl,
    secretKey: randomBytes(32).toString('base64'),
    sessionSecret: randomBytes(32).toString('base64url'),
  };
}

export const removeBridgeData = (data: BridgeData) =>
  fs.rmSync(data.dataDir, { recursive: true, force: true });

/** A new user and API key written straight into the bridge's store (as `bridge keys create`). */
export async function createApiKey(
  data: BridgeData,
  email = `u-${randomBytes(4).toString('hex')}@example.com`,
): Promise<{ key: string; keyId: string; userId: string; email: string }> {
  const store = openStore({ databaseUrl: data.databaseUrl, dataDir: data.dataDir, poolSize: 1 });
  try {
    const { id, key, userId } = await createApiKeyForEmail(store.db, { email }, new Date());
    return { key, keyId: id, userId, email };
  } finally {
    await store.close();
  }
}
