import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db, Engine } from '../store/db';
import type {
  WebhookDeliveriesTable,
  WebhookEndpointsTable,
  WebhookEventsTable,
} from '../store/schema';

export type EndpointRow = Selectable<WebhookEndpointsTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
/** A delivery with what sending it needs: its event and its endpoint. */
export type DueDelivery = DeliveryRow & {
  eventType: string;
  payload: string;
  url: string;
  organizationId: string;
};
export type DeliveryWithType = DeliveryRow & { eventType: string };

export const insertEndpoint = (db: Db, row: Insertable<WebhookEndpointsTable>) =>
  db.insertInto('webhookEndpoints').values(row).returningAll().executeTakeFirstOrThrow();

export const findEndpoint = (db: Db, orgId: string, id: string) =>
  db
    .selectFrom('webhookEndpoints')
    .selectAll()
    .where('organizationId', '=', orgId)
    .where('id', '=', id)
    .executeTakeFirst();

export const findEndpointById = (db: Db, id: string) =>
  db.selectFrom('webhookEndpoints').selectAll().where('id', '=', id).executeTakeFirst();

/** The row locked for the rest of the transaction on PostgreSQL (SQLite: one writer at a time). */
export function findEndpointForUpdate(db: Db, engine: Engine, orgId: string, id: string) {
  const query = db
    .selectFrom('webhookEndpoints')
    .selectAll()
    .where('organizationId', '=', orgId)
    .where('id', '=', id);
  return (engine === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
}

export const listEndpoints = (db: Db, orgId: string, page: { cursor?: string; limit: number }) =>
  db
    .selectFrom('webhookEndpoints')
    .selectAll()
    .where('organizationId', '=', orgId)
    .$if(page.cursor !== undefined, (q) => q.where('id', '>', page.cursor as string))
    .orderBy('id')
    .limit(page.limit + 1)
    .execute();

export const updateEndpointRow = (
  db: Db,
  orgId: string,
  id: string,
  patch: Updateable<WebhookEndpointsTable>,
) =>
  db
    .updateTable('webhookEndpoints')
    .set(patch)
    .where('organizationId', '=', orgId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();

export const deleteEndpointRow = (db: Db, orgId: string, id: string) =>
  db
    .deleteFrom('webhookEndpoints')
    .where('organizationId', '=', orgId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();

/** The organization's enabled endpoints subscribed to `type` (event_types is a JSON array). */
export const subscribedEndpoints = (db: Db, orgId: string, type: string) =>
  db
    .selectFrom('webhookEndpoints')
    .select('id')
    .where('organizationId', '=', orgId)
    .where('enabled', '=', 1)
    .where('eventTypes', 'like', `%"${type}"%`)
    .execute();

export const insertEvent = (db: Db, row: Insertable<WebhookEventsTable>) =>
  db.insertInto('webhookEvents').values(row).execute();

export const insertDeliveries = (db: Db, rows: Insertable<WebhookDeliveriesTable>[]) =>
  db.insertInto('webhookDeliveries').values(rows).returningAll().execute();

const withEvent = (db: Db) =>
  db
    .selectFrom('webhookDeliveries as d')
    .innerJoin('webhookEvents as e', 'e.id', 'd.eventId')
    .selectAll('d')
    .select('e.type as eventType');

/** An endpoint's deliveries, newest first. */
export const listDeliveries = (
  db: Db,
  endpointId: string,
  page: { cursor?: string; limit: number },
): Promise<DeliveryWithType[]> =>
  withEvent(db)
    .where('d.endpointId', '=', endpointId)
    .$if(page.cursor !== undefined, (q) => q.where('d.id', '<', page.cursor as string))
    .orderBy('d.id', 'desc')
    .limit(page.limit + 1)
    .execute();

export const findDelivery = (db: Db, id: string): Promise<DeliveryWithType | undefined> =>
  withEvent(db).where('d.id', '=', id).executeTakeFirst();

/**
 * Takes up to `limit` due deliveries for `leaseUntil`, skipping `busyEndpoints` (this instance
 * is sending to them as much as it may) and disabled endpoints (their deliveries wait). One
 * statement, no transaction held open: on PostgreSQL rows another instance is claiming are
 * skipped, so each is taken once. An idle poll is one read. Returns them with their event and endpoint.
 */
export async function claimDue(
  db: Db,
  engine: Engine,
  at: { now: string; leaseUntil: string },
  limit: number,
  busyEndpoints: readonly string[],
): Promise<DueDelivery[]> {
  let due = db
    .selectFrom('webhookDeliveries as d')
    .innerJoin('webhookEndpoints as w', 'w.id', 'd.endpointId')
    .select('d.id')
    .where('d.status', '=', 'pending')
    .where('w.enabled', '=', 1)
    .where('d.nextAttemptAt', '<=', at.now)
    .where((eb) => eb.or([eb('d.leaseUntil', 'is', null), eb('d.leaseUntil', '<', at.now)]))
    .$if(busyEndpoints.length > 0, (q) => q.where('d.endpointId', 'not in', busyEndpoints))
    .orderBy('d.nextAttemptAt')
    .limit(limit);
  // A read first: an idle poll writes nothing (no lock, no WAL on SQLite).
  if ((await due.execute()).length === 0) return [];
  if (engine === 'postgres') due = due.forUpdate('d').skipLocked();
  const claimed = await db
    .updateTable('webhookDeliveries')
    .set({ leaseUntil: at.leaseUntil })
    .where('id', 'in', due)
    .returning('id')
    .execute();
  if (claimed.length === 0) return [];
  return db
    .selectFrom('webhookDeliveries as d')
    .innerJoin('webhookEvents as e', 'e.id', 'd.eventId')
    .innerJoin('webhookEndpoints as w', 'w.id', 'd.endpointId')
    .selectAll('d')
    .select(['e.type as eventType', 'e.payload', 'w.url', 'w.organizationId'])
    .where(
      'd.id',
      'in',
      claimed.map((r) => r.id),
    )
    .where('d.leaseUntil', '=', at.leaseUntil)
    .execute();
}

/** Records one attempt's outcome, if this instance still holds the lease it claimed with. */
export const recordAttempt = (
  db: Db,
  id: string,
  leaseUntil: string,
  patch: Updateable<WebhookDeliveriesTable>,
) =>
  db
    .updateTable('webhookDeliveries')
    .set({ ...patch, leaseUntil: null })
    .where('id', '=', id)
    .where('leaseUntil', '=', leaseUntil)
    .executeTakeFirst();

/**
 * Deletes events recorded before `before` that have no delivery left to make, with their
 * deliveries (the foreign key cascades); returns how many events went.
 */
export async function pruneOutbox(db: Db, before: string): Promise<number> {
  const result = await db
    .deleteFrom('webhookEvents')
    .where('createdAt', '<', before)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('webhookDeliveries as d')
            .select('d.id')
            .whereRef('d.eventId', '=', 'webhookEvents.id')
            .where('d.status', '=', 'pending'),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
