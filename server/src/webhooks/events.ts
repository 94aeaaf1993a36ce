import type { WebhookEventData, WebhookEventType } from '@bridgekit/contract';
import type { z } from 'zod';
import { newId } from '../domain/ids';
import { type Db, engineOf } from '../store/db';
import { type DeliveryRow, type DeliveryWithType, insertEvent, subscribedEndpoints } from './store';

type DataOf<T extends WebhookEventType> = z.input<(typeof WebhookEventData)[T]>;

/** The envelope every delivery carries: `{type, timestamp, data}`. */
const envelope = (type: string, timestamp: string, data: unknown) =>
  JSON.stringify({ type, timestamp, data });

async function fanOut(
  db: Db,
  orgId: string,
  type: string,
  data: unknown,
  at: Date,
  endpointIds: string[],
): Promise<DeliveryRow[]> {
  if (endpointIds.length === 0) return [];
  const eventId = newId('msg');
  const createdAt = at.toISOString();
  const event = {
    id: eventId,
    organizationId: orgId,
    type,
    payload: envelope(type, createdAt, data),
    createdAt,
  };
  return insertEvent(
    db,
    event,
    endpointIds.map((endpointId) => ({
      id: newId('whd'),
      endpointId,
      eventId,
      status: 'pending',
      attempts: 0,
      nextAttemptAt: createdAt,
      createdAt,
    })),
  );
}

/**
 * Records an event in the outbox: one delivery per enabled endpoint of the organization that
 * subscribes to `type` (none: nothing is written). Call it with the transaction that makes the
 * change, so an event exists exactly when its change committed.
 */
export function recordEvent<T extends WebhookEventType>(
  db: Db,
  orgId: string,
  type: T,
  data: DataOf<T>,
  at: Date,
): Promise<void> {
  return recordEvents(db, orgId, type, [data], at);
}

/**
 * recordEvent for several subjects of one type in one organization (say, the memberships a
 * batch of sign-ins created), the subscribed endpoints looked up once.
 */
export async function recordEvents<T extends WebhookEventType>(
  db: Db,
  orgId: string,
  type: T,
  data: readonly DataOf<T>[],
  at: Date,
): Promise<void> {
  if (data.length === 0) return;
  const endpointIds = (await subscribedEndpoints(db, orgId, type)).map((e) => e.id);
  for (const one of data) await fanOut(db, orgId, type, one, at, endpointIds);
}

const TEST_EVENT = 'webhook.test';

/**
 * A `webhook.test` event for one endpoint; its delivery, as queued. The event and its delivery
 * are written together or not at all: in one statement on PostgreSQL (see insertEvent), in one
 * transaction on SQLite (the caller's, or one of its own).
 */
export async function recordTestEvent(
  db: Db,
  orgId: string,
  endpointId: string,
  at: Date,
): Promise<DeliveryWithType> {
  const data = { organizationId: orgId, endpointId };
  const record = (tx: Db) => fanOut(tx, orgId, TEST_EVENT, data, at, [endpointId]);
  const atomic = db.isTransaction || engineOf(db) === 'postgres';
  const [delivery] = atomic ? await record(db) : await db.transaction().execute(record);
  return { ...(delivery as DeliveryRow), eventType: TEST_EVENT };
}

/** A member as the member.* events carry it. */
export const memberData = (m: {
  id: string;
  organizationId: string;
  userId: string;
  userEmail: string;
  role: string;
}) => ({
  organizationId: m.organizationId,
  memberId: m.id,
  userId: m.userId,
  email: m.userEmail,
  role: m.role as 'ADMIN' | 'MEMBER',
});
