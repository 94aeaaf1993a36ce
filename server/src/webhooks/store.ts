import type { Insertable, Selectable, Updateable } from 'kysely';
import { type Db, type Engine, engineOf } from '../store/db';
import type {
  WebhookDeliveriesTable,
  WebhookEndpointsTable,
  WebhookEventsTable,
} from '../store/schema';

export type EndpointRow = Selectable<WebhookEndpointsTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
/** A delivery's endpoint with what sending it needs of the delivery and its event. */
export type DueDelivery = EndpointRow & {
  deliveryId: string;
  eventId: string;
  attempts: number;
  payload: string;
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

/**
 * Writes an event and its deliveries; returns the deliveries. On PostgreSQL it is one
 * statement (the event inserted in a CTE), so it is atomic without a transaction of its own and
 * costs one round trip; SQLite runs the two inserts in process, inside the caller's transaction.
 */
export async function insertEvent(
  db: Db,
  event: Insertable<WebhookEventsTable>,
  deliveries: Insertable<WebhookDeliveriesTable>[],
): Promise<DeliveryRow[]> {
  if (engineOf(db) === 'postgres') {
    return db
      .with('event', (q) => q.insertInto('webhookEvents').values(event).returning('id'))
      .insertInto('webhookDeliveries')
      .values(deliveries)
      .returningAll()
      .execute();
  }
  await db.insertInto('webhookEvents').values(event).execute();
  return db.insertInto('webhookDeliveries').values(deliveries).returningAll().execute();
}

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

/**
 * Up to `limit` deliveries due at `now` and in no one's hands (never leased, or the lease
 * ended), of enabled endpoints, oldest due first, at most `perEndpoint` of each endpoint (so
 * one endpoint's backlog never fills the batch). A read: an idle look writes nothing.
 */
export function dueDeliveries(db: Db, now: string, perEndpoint: number, limit: number) {
  const ranked = db
    .selectFrom('webhookDeliveries as d')
    .innerJoin('webhookEndpoints as w', 'w.id', 'd.endpointId')
    .select((eb) => [
      'd.id',
      'd.endpointId',
      'd.nextAttemptAt',
      eb.fn
        .agg<number>('row_number')
        .over((ob) => ob.partitionBy('d.endpointId').orderBy('d.nextAttemptAt').orderBy('d.id'))
        .as('rank'),
    ])
    .where('d.status', '=', 'pending')
    .where('w.enabled', '=', 1)
    .where('d.nextAttemptAt', '<=', now)
    .where((eb) => eb.or([eb('d.leaseUntil', 'is', null), eb('d.leaseUntil', '<', now)]));
  return db
    .selectFrom(ranked.as('r'))
    .select(['r.id', 'r.endpointId'])
    .where('r.rank', '<=', perEndpoint)
    .orderBy('r.nextAttemptAt')
    .orderBy('r.id')
    .limit(limit)
    .execute();
}

/** Per endpoint, how many of its deliveries are leased at `now` (queued or being sent). */
export async function leasedByEndpoint(db: Db, now: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('webhookDeliveries')
    .select((eb) => ['endpointId', eb.fn.countAll<number>().as('n')])
    .where('status', '=', 'pending')
    .where('leaseUntil', '>=', now)
    .groupBy('endpointId')
    .execute();
  return new Map(rows.map((r) => [r.endpointId, Number(r.n)]));
}

/**
 * Leases `ids` until `leaseUntil`, each only if still pending and in no one's hands at `now`;
 * returns those it leased. One statement: of instances leasing the same row at once, the
 * first's lease stands and the others' conditions no longer match (on PostgreSQL the row
 * lock makes them wait and re-check), so each lease is taken by one.
 */
export async function leaseDeliveries(
  db: Db,
  ids: readonly string[],
  now: string,
  leaseUntil: string,
): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .updateTable('webhookDeliveries')
    .set({ leaseUntil })
    .where('id', 'in', ids)
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('leaseUntil', 'is', null), eb('leaseUntil', '<', now)]))
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

/**
 * Of `leases`, the deliveries still pending under the lease given (else they were sent,
 * deleted or leased again since) whose endpoint is enabled: each with its endpoint, its
 * attempts and its event's payload, in one read.
 */
export const findLeased = (
  db: Db,
  leases: readonly { id: string; lease: string }[],
): Promise<DueDelivery[]> =>
  db
    .selectFrom('webhookDeliveries as d')
    .innerJoin('webhookEvents as e', 'e.id', 'd.eventId')
    .innerJoin('webhookEndpoints as w', 'w.id', 'd.endpointId')
    .selectAll('w')
    .select(['d.id as deliveryId', 'd.eventId', 'd.attempts', 'e.payload'])
    .where((eb) =>
      eb.or(
        leases.map(({ id, lease }) =>
          eb.and([eb('d.id', '=', id), eb('d.leaseUntil', '=', lease)]),
        ),
      ),
    )
    .where('d.status', '=', 'pending')
    .where('w.enabled', '=', 1)
    .execute();

/** Gives back leases taken for jobs that will not run (a stopping process's queue). */
export async function releaseLeases(
  db: Db,
  leases: readonly { id: string; lease: string }[],
): Promise<void> {
  for (const { id, lease } of leases) {
    await db
      .updateTable('webhookDeliveries')
      .set({ leaseUntil: null })
      .where('id', '=', id)
      .where('leaseUntil', '=', lease)
      .execute();
  }
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
