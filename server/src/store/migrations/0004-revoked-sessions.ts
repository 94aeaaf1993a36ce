import type { Kysely, Migration } from 'kysely';
import { byteOrder, type Dialect } from './dialect';

/**
 * Sessions ended before their time (logout), kept until the session could no longer be renewed
 * anyway. Every request made with a session checks it is not here, on every instance.
 */
export const revokedSessions = (dialect: Dialect): Migration => ({
  async up(db: Kysely<unknown>) {
    const c = byteOrder(dialect);
    await db.schema
      .createTable('revoked_sessions')
      .addColumn('session_id', 'text', (col) => c(col.primaryKey()))
      .addColumn('organization_id', 'text', (col) => c(col.notNull()))
      .addColumn('expires_at', 'text', (col) => col.notNull())
      .execute();
    await db.schema
      .createIndex('revoked_sessions_expires')
      .on('revoked_sessions')
      .column('expires_at')
      .execute();
  },
});
