import type {
  CreateWebhookEndpointBody,
  UpdateWebhookEndpointBody,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEventType,
} from '@bridgekit/contract';
import type { Updateable } from 'kysely';
import { notFound } from '../api-error';
import type { Deps } from '../deps';
import { newId } from '../domain/ids';
import type { WebhookEndpointsTable } from '../store/schema';
import { newWebhookSecret } from './signing';
import {
  type DeliveryWithType,
  deleteEndpointRow,
  type EndpointRow,
  findEndpointForUpdate,
  insertEndpoint,
  updateEndpointRow,
} from './store';

/** The field names bound into each sealed secret's associated data (`recordId:field`). */
export const SECRET_FIELD = 'webhookSecret';
export const PREVIOUS_SECRET_FIELD = 'previousWebhookSecret';
/** How long a rotated-out secret keeps signing beside the new one. */
export const SECRET_GRACE_MS = 24 * 3600 * 1000;

export const endpointNotFound = () => notFound('Webhook endpoint', 'webhook_endpoint_not_found');

/** An endpoint as the API shows it: field by field, never a secret. */
export function toWebhookEndpoint(row: EndpointRow, now: Date): WebhookEndpoint {
  const graceLive =
    row.previousSecretExpiresAt !== null && Date.parse(row.previousSecretExpiresAt) > now.getTime();
  return {
    id: row.id,
    organizationId: row.organizationId,
    url: row.url,
    description: row.description,
    eventTypes: JSON.parse(row.eventTypes) as WebhookEventType[],
    enabled: row.enabled === 1,
    disabledReason: row.disabledReason,
    disabledAt: row.disabledAt,
    previousSecretExpiresAt: graceLive ? row.previousSecretExpiresAt : null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export function toWebhookDelivery(row: DeliveryWithType): WebhookDelivery {
  return {
    id: row.id,
    endpointId: row.endpointId,
    eventId: row.eventId,
    eventType: row.eventType,
    status: row.status as WebhookDelivery['status'],
    attempts: row.attempts,
    lastAttemptAt: row.lastAttemptAt,
    lastResponseStatus: row.lastResponseStatus,
    lastError: row.lastError,
    nextAttemptAt: row.status === 'pending' ? row.nextAttemptAt : null,
    createdAt: row.createdAt,
  };
}

/** The secrets that sign a delivery now: the current one, and the previous during its grace. */
export function signingSecrets(deps: Deps, row: EndpointRow): string[] {
  const box = deps.secretBox;
  const secrets = [box.open(row.secretSealed, row.id, SECRET_FIELD)];
  const until = row.previousSecretExpiresAt;
  if (row.previousSecretSealed && until && Date.parse(until) > deps.now().getTime()) {
    secrets.push(box.open(row.previousSecretSealed, row.id, PREVIOUS_SECRET_FIELD));
  }
  return secrets;
}

/** Creates an endpoint with a new secret; returns it with the secret, for the one answer showing it. */
export async function createEndpoint(
  deps: Deps,
  orgId: string,
  body: CreateWebhookEndpointBody,
): Promise<{ row: EndpointRow; secret: string }> {
  const id = newId('whe');
  const secret = newWebhookSecret();
  const at = deps.now().toISOString();
  const row = await insertEndpoint(deps.store.db, {
    id,
    organizationId: orgId,
    url: body.url,
    description: body.description ?? null,
    eventTypes: JSON.stringify(body.eventTypes),
    secretSealed: deps.secretBox.seal(secret, id, SECRET_FIELD),
    previousSecretSealed: null,
    previousSecretExpiresAt: null,
    enabled: 1,
    disabledReason: null,
    disabledAt: null,
    createdAt: at,
    updatedAt: at,
  });
  return { row, secret };
}

/** PATCH semantics; `enabled: true` clears the reason the bridge disabled it for. */
export async function updateEndpoint(
  deps: Deps,
  orgId: string,
  id: string,
  body: UpdateWebhookEndpointBody,
): Promise<EndpointRow> {
  const at = deps.now().toISOString();
  const patch: Updateable<WebhookEndpointsTable> = { updatedAt: at };
  if (body.url !== undefined) patch.url = body.url;
  if (body.eventTypes !== undefined) patch.eventTypes = JSON.stringify(body.eventTypes);
  if (body.description !== undefined) patch.description = body.description;
  if (body.enabled === true)
    Object.assign(patch, { enabled: 1, disabledReason: null, disabledAt: null });
  if (body.enabled === false) {
    Object.assign(patch, { enabled: 0, disabledReason: 'Disabled by an ADMIN', disabledAt: at });
  }
  const row = await updateEndpointRow(deps.store.db, orgId, id, patch);
  if (!row) throw endpointNotFound();
  return row;
}

/** Deletes the endpoint with its deliveries (pending ones are never sent). */
export async function deleteEndpoint(deps: Deps, orgId: string, id: string): Promise<EndpointRow> {
  const row = await deleteEndpointRow(deps.store.db, orgId, id);
  if (!row) throw endpointNotFound();
  return row;
}

/**
 * A new secret; the replaced one keeps signing beside it for SECRET_GRACE_MS (a secret an
 * earlier rotation kept is dropped). Row-locked, as rotating the jwtSecret is.
 */
export function rotateEndpointSecret(
  deps: Deps,
  orgId: string,
  id: string,
): Promise<{ row: EndpointRow; secret: string }> {
  const box = deps.secretBox;
  return deps.store.db.transaction().execute(async (tx) => {
    const current = await findEndpointForUpdate(tx, deps.store.engine, orgId, id);
    if (!current) throw endpointNotFound();
    const now = deps.now();
    const replaced = box.open(current.secretSealed, id, SECRET_FIELD);
    const secret = newWebhookSecret();
    const row = await updateEndpointRow(tx, orgId, id, {
      secretSealed: box.seal(secret, id, SECRET_FIELD),
      previousSecretSealed: box.seal(replaced, id, PREVIOUS_SECRET_FIELD),
      previousSecretExpiresAt: new Date(now.getTime() + SECRET_GRACE_MS).toISOString(),
      updatedAt: now.toISOString(),
    });
    if (!row) throw endpointNotFound();
    return { row, secret };
  });
}

/**
 * Re-seals every endpoint's secrets that are not under the current key (`bridge secrets
 * rotate`), each only if unchanged since read; returns how many endpoints changed.
 */
export async function resealEndpoints(deps: Deps): Promise<number> {
  const { db } = deps.store;
  const box = deps.secretBox;
  const columns = [
    ['secretSealed', SECRET_FIELD],
    ['previousSecretSealed', PREVIOUS_SECRET_FIELD],
  ] as const;
  let changed = 0;
  let cursor = '';
  for (;;) {
    const rows = await db
      .selectFrom('webhookEndpoints')
      .select(['id', 'secretSealed', 'previousSecretSealed'])
      .where('id', '>', cursor)
      .orderBy('id')
      .limit(200)
      .execute();
    for (const row of rows) {
      let resealed = false;
      for (const [column, field] of columns) {
        const sealed = row[column];
        if (!sealed || !box.isStale(sealed)) continue;
        const result = await db
          .updateTable('webhookEndpoints')
          .set({ [column]: box.seal(box.open(sealed, row.id, field), row.id, field) })
          .where('id', '=', row.id)
          .where(column, '=', sealed)
          .executeTakeFirst();
        if (result.numUpdatedRows > 0n) resealed = true;
      }
      if (resealed) changed++;
    }
    if (rows.length < 200) return changed;
    cursor = rows.at(-1)!.id;
  }
}
