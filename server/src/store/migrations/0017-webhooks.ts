import type { Kysely, Migration } from 'kysely';
import { byteOrder, type Dialect } from './dialect';

/**
 * Webhooks. `webhook_endpoints`: where an organization wants events (its signing secret sealed,
 * the one a rotation replaced beside it until its grace ends). No foreign key to the
 * organization: `organization.deleted` is still delivered after the organization is gone.
 * `webhook_events`: the outbox, written in the transaction of the change it reports.
 * `webhook_deliveries`: one per event and endpoint, with its attempts and the next one's time;
 * `lease_until` marks the instance sending it, so two never send it at once.
 */
export const webhooks = (dialect: Dialect): Migration => ({
  async up(db: Kysely<unknown>) {
    const c = byteOrder(dialect);
    await db.schema
      .createTable('webhook_endpoints')
      .addColumn('id', 'text', (col) => c(col.primaryKey()))
      .addColumn('organization_id', 'text', (col) => c(col.notNull()))
      .addColumn('url', 'text', (col) => col.notNull())
      .addColumn('description', 'text')
      .addColumn('event_types', 'text', (col) => col.notNull())
      .addColumn('secret_sealed', 'text', (col) => col.notNull())
      .addColumn('previous_secret_sealed', 'text')
      .addColumn('previous_secret_expires_at', 'text')
      .addColumn('enabled', 'integer', (col) => col.notNull())
      .addColumn('disabled_reason', 'text')
      .addColumn('disabled_at', 'text')
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .execute();
    await db.schema
      .createIndex('webhook_endpoints_org')
      .on('webhook_endpoints')
      .columns(['organization_id', 'id'])
      .execute();
    await db.schema
      .createTable('webhook_events')
      .addColumn('id', 'text', (col) => c(col.primaryKey()))
      .addColumn('organization_id', 'text', (col) => c(col.notNull()))
      .addColumn('type', 'text', (col) => col.notNull())
      .addColumn('payload', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .execute();
    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', 'text', (col) => c(col.primaryKey()))
      .addColumn('endpoint_id', 'text', (col) =>
        c(col.notNull().references('webhook_endpoints.id').onDelete('cascade')),
      )
      .addColumn('event_id', 'text', (col) =>
        c(col.notNull().references('webhook_events.id').onDelete('cascade')),
      )
      .addColumn('status', 'text', (col) => col.notNull())
      .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'text')
      .addColumn('lease_until', 'text')
      .addColumn('last_attempt_at', 'text')
      .addColumn('last_response_status', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'text', (col) => col.notNull())
      .execute();
    await db.schema
      .createIndex('webhook_deliveries_due')
      .on('webhook_deliveries')
      .columns(['status', 'next_attempt_at'])
      .execute();
    await db.schema
      .createIndex('webhook_deliveries_endpoint')
      .on('webhook_deliveries')
      .columns(['endpoint_id', 'id'])
      .execute();
  },
});
