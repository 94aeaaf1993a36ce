import type { z } from 'zod';
import { type JsonSchema, toSchema } from './openapi-schema';
import {
  WebhookEventData,
  type WebhookEventType,
  WebhookTestData,
  webhookEnvelope,
} from './webhook';

/** When each event is sent, shown in the document's `webhooks` section. */
const EVENT_DESCRIPTIONS: Record<WebhookEventType | 'webhook.test', string> = {
  'data_source.health_changed':
    "A data source's scheduled or requested health check found it in another state than the last one (the first check counts as a change).",
  'data_source.sync_succeeded': "A schema sync read the data source's catalog.",
  'data_source.sync_failed': 'A schema sync could not read the catalog; `failureCode` says why.',
  'member.added':
    'A member was added: through the API or the CLI, or by an SSO sign-in of a user the bridge already knows (not yet the first sign-in of a new email).',
  'member.role_changed': "A member's role changed.",
  'member.removed': 'A member was removed or left.',
  'organization.updated': 'The organization was changed; `changed` names the fields set.',
  'organization.deleted':
    'The organization was deleted (sent to its endpoints, which are deleted after).',
  'organization.jwt_secret_rotated':
    "The organization's SSO secret was replaced. The secret itself is never sent.",
  'webhook.test': 'Sent by `POST …/webhook-endpoints/{id}/test`, to this endpoint only.',
};

const HEADERS = {
  'webhook-id': 'The event id (`msg_…`): the same on every attempt, for de-duplication.',
  'webhook-timestamp':
    'Seconds since the epoch at this attempt; refuse one more than 5 minutes off.',
  'webhook-signature':
    '`v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">` under the secret; two, space-separated, during a rotation.',
};

function operation(type: string, data: z.ZodType, description: string): JsonSchema {
  return {
    post: {
      operationId: `webhook:${type}`,
      summary: type,
      description,
      tags: ['Webhooks'],
      security: [],
      parameters: Object.entries(HEADERS).map(([name, text]) => ({
        name,
        in: 'header',
        required: true,
        description: text,
        schema: { type: 'string' },
      })),
      requestBody: {
        required: true,
        content: {
          'application/json': { schema: toSchema(webhookEnvelope(type, data), 'output') },
        },
      },
      responses: {
        '200': {
          description:
            'Any 2xx within 15 seconds acknowledges it; anything else (or none) is retried with back-off',
        },
      },
    },
  };
}

/** OpenAPI 3.1 `webhooks`: each event's envelope `{type, timestamp, data}`. */
export function webhookOperations(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const [type, data] of Object.entries(WebhookEventData) as [WebhookEventType, z.ZodType][]) {
    out[type] = operation(type, data, EVENT_DESCRIPTIONS[type]);
  }
  out['webhook.test'] = operation(
    'webhook.test',
    WebhookTestData,
    EVENT_DESCRIPTIONS['webhook.test'],
  );
  return out;
}
