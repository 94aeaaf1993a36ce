import type { Kysely, Migration } from 'kysely';
import { byteOrder, type Dialect } from './dialect';

/**
 * Single-use handoff codes of the full-embed sign-in: `GET /api/sso/jwt` stores one (only its
 * SHA-256, never the code) and the embed page redeems it once at `POST /embed/session`. In the
 * shared store, so a code issued by one instance is redeemed at any other.
 */
export const embedHandoffs = (dialect: Dialect): Migration => ({
  async up(db: Kysely<unknown>) {
    const c = byteOrder(dialect);
    await db.schema
      .createTable('embed_handoffs')
      .addColumn('code_hash', 'text', (col) => c(col.primaryKey()))
      .addColumn('organization_id', 'text', (col) => c(col.notNull()))
      .addColumn('member_id', 'text', (col) => c(col.notNull()))
      .addColumn('framing_origin', 'text', (col) => col.notNull())
      .addColumn('expires_at', 'text', (col) => col.notNull())
      .addColumn('used_at', 'text')
      .addColumn('session_id', 'text')
      .execute();
    await db.schema
      .createIndex('embed_handoffs_expires')
      .on('embed_handoffs')
      .column('expires_at')
      .execute();
  },
});
