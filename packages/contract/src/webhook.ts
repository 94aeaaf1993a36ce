import { z } from 'zod';
import { DataSourceId, idOf, MemberId, OrganizationId, Timestamp, UserId } from './common';
import { VERIFY_CODES } from './error-codes';
import { Role } from './member';

export const WebhookEndpointId = idOf('whe');
export const WebhookEventId = idOf('msg');
export const WebhookDeliveryId = idOf('whd');

/** The events an endpoint can subscribe to, named `noun.verb`. */
export const WebhookEventType = z.enum([
  'data_source.health_changed',
  'data_source.sync_succeeded',
  'data_source.sync_failed',
  'member.added',
  'member.role_changed',
  'member.removed',
  'organization.updated',
  'organization.deleted',
  'organization.jwt_secret_rotated',
]);
export type WebhookEventType = z.infer<typeof WebhookEventType>;

/** Why a data source check or sync failed: a verify failure code. */
const FailureCode = z.enum([...VERIFY_CODES, 'internal_error']);

export const WebhookEndpoint = z.object({
  id: WebhookEndpointId,
  organizationId: OrganizationId,
  url: z.string(),
  description: z.string().nullable(),
  eventTypes: z.array(WebhookEventType),
  /** False once the bridge gave up on it (see `disabledReason`) or an ADMIN turned it off. */
  enabled: z.boolean(),
  disabledReason: z.string().nullable(),
  disabledAt: Timestamp.nullable(),
  /** Until when the secret replaced by the last rotation still signs deliveries; else null. */
  previousSecretExpiresAt: Timestamp.nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

/** An endpoint with its signing secret: what creating one and rotating the secret answer. */
export const WebhookEndpointWithSecret = WebhookEndpoint.extend({
  /** `whsec_` and the key, base64: shown this once. */
  secret: z.string(),
});
export type WebhookEndpointWithSecret = z.infer<typeof WebhookEndpointWithSecret>;

/** An http(s) URL; the bridge refuses private addresses when it sends (the verify policy). */
const EndpointUrl = z
  .string()
  .trim()
  .max(2000, 'Must be at most 2000 characters')
  .pipe(z.url({ protocol: /^https?$/, error: 'Must be an http or https URL' }));
const EventTypes = z
  .array(WebhookEventType)
  .min(1, 'Name at least one event type')
  .max(WebhookEventType.options.length)
  .refine((types) => new Set(types).size === types.length, 'Each event type once');
const Description = z.string().max(500, 'Must be at most 500 characters');

export const CreateWebhookEndpointBody = z.strictObject({
  url: EndpointUrl,
  eventTypes: EventTypes,
  description: Description.optional(),
});
export type CreateWebhookEndpointBody = z.infer<typeof CreateWebhookEndpointBody>;

/** Omitted fields are unchanged; `enabled: true` turns an endpoint the bridge disabled back on. */
export const UpdateWebhookEndpointBody = z.strictObject({
  url: EndpointUrl.optional(),
  eventTypes: EventTypes.optional(),
  description: Description.nullable().optional(),
  enabled: z.boolean().optional(),
});
export type UpdateWebhookEndpointBody = z.infer<typeof UpdateWebhookEndpointBody>;

export const WebhookEndpointParams = z.strictObject({ orgId: z.string(), id: z.string() });

export const WebhookDeliveryStatus = z.enum(['pending', 'succeeded', 'failed']);

/** One event sent (or to send) to one endpoint. */
export const WebhookDelivery = z.object({
  id: WebhookDeliveryId,
  endpointId: WebhookEndpointId,
  eventId: WebhookEventId,
  eventType: z.string(),
  /** `pending` until an attempt gets a 2xx (`succeeded`) or the last one fails (`failed`). */
  status: WebhookDeliveryStatus,
  attempts: z.number().int(),
  lastAttemptAt: Timestamp.nullable(),
  /** The receiver's HTTP status on the last attempt; null when none came (see `lastError`). */
  lastResponseStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  /** When the next attempt is due; null once it succeeded or failed for good. */
  nextAttemptAt: Timestamp.nullable(),
  createdAt: Timestamp,
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

const DataSourceRef = { organizationId: OrganizationId, dataSourceId: DataSourceId };
const MemberRef = {
  organizationId: OrganizationId,
  memberId: MemberId,
  userId: UserId,
  email: z.string(),
  role: Role,
};
const OrganizationRef = { organizationId: OrganizationId, name: z.string(), slug: z.string() };

/** Each event's `data`. */
export const WebhookEventData = {
  'data_source.health_changed': z.object({
    ...DataSourceRef,
    previousStatus: z.enum(['HEALTHY', 'UNHEALTHY']).nullable(),
    status: z.enum(['HEALTHY', 'UNHEALTHY']),
    /** Why the check failed (a verify failure code); null when HEALTHY. */
    failureCode: FailureCode.nullable(),
  }),
  'data_source.sync_succeeded': z.object({
    ...DataSourceRef,
    tableCount: z.number().int(),
    columnCount: z.number().int(),
    /** True when the catalog was cut at the bridge's table limit. */
    truncated: z.boolean(),
  }),
  'data_source.sync_failed': z.object({ ...DataSourceRef, failureCode: FailureCode }),
  'member.added': z.object(MemberRef),
  'member.role_changed': z.object({ ...MemberRef, previousRole: Role }),
  'member.removed': z.object(MemberRef),
  'organization.updated': z.object({
    ...OrganizationRef,
    /** The fields the change set. */
    changed: z.array(z.string()),
  }),
  'organization.deleted': z.object(OrganizationRef),
  'organization.jwt_secret_rotated': z.object({
    organizationId: OrganizationId,
    /** Until when the replaced secret still verifies SSO tokens. The secret is never sent. */
    previousJwtSecretExpiresAt: Timestamp.nullable(),
  }),
} as const satisfies Record<WebhookEventType, z.ZodType>;

/** What `POST …/webhook-endpoints/{id}/test` sends. */
export const WebhookTestData = z.object({
  organizationId: OrganizationId,
  endpointId: WebhookEndpointId,
});

/** The body of every delivery, signed per Standard Webhooks. */
export const webhookEnvelope = <T extends string, D extends z.ZodType>(type: T, data: D) =>
  z.object({ type: z.literal(type), timestamp: Timestamp, data });
