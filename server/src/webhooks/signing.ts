import { createHmac, randomBytes } from 'node:crypto';

/** Standard Webhooks' secret prefix: what follows is the key, base64. */
export const SECRET_PREFIX = 'whsec_';
/** Bytes of key in a new secret (the spec allows 24 to 64). */
const SECRET_BYTES = 32;

/** A new signing secret: `whsec_` and 32 random bytes, base64. */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

function keyOf(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('a webhook secret starts with whsec_');
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

/** One `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. */
function signatureUnder(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`);
  return `v1,${mac.digest('base64')}`;
}

/**
 * The Standard Webhooks headers for one attempt: `secrets` is the current secret and, during a
 * rotation's grace, the previous one, each signing (space-separated, as the spec allows).
 */
export function webhookHeaders(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => signatureUnder(s, id, timestamp, body)).join(' '),
  };
}
