import type { Kysely, Migration } from 'kysely';

/**
 * `key_checks`: one check value per configured key (an HMAC of a fixed text under the key, never
 * the key), so an instance started with another BRIDGE_SECRET_KEY or BRIDGE_SESSION_SECRET than
 * the store's is refused at start instead of splitting the data between two keys.
 */
export const keyChecks = (): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('key_checks')
      .addColumn('name', 'text', (col) => col.primaryKey())
      .addColumn('check_value', 'text', (col) => col.notNull())
      .addColumn('recorded_at', 'text', (col) => col.notNull())
      .execute();
  },
});
