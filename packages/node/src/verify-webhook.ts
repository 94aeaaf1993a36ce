import { createHmac, timingSafeEqual } from 'node:crypto';

/** Why a webhook was refused: a stable code to branch on (the message is for people). */
export type WebhookVerificationCode =
  | 'missing_headers'
  | 'invalid_timestamp'
  | 'timestamp_out_of_range'
  | 'invalid_secret'
  | 'invalid_signature'
  | 'invalid_payload';

/** Thrown by `verifyWebhook` when a delivery is not one the bridge signed just now. */
export class WebhookVerificationError extends Error {
  readonly code: WebhookVerificationCode;
  constructor(code: WebhookVerificationCode, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.code = code;
  }
}

/** The envelope of every event the bridge delivers. */
export interface WebhookEvent<Data = Record<string, unknown>> {
  /** `noun.verb`, e.g. `member.added`. */
  type: string;
  /** When the change happened (ISO 8601). */
  timestamp: string;
  data: Data;
}

type HeaderValue = string | readonly string[] | undefined;

/** A request as most Node frameworks give it: headers and the raw body, unparsed. */
export interface RawWebhookRequest {
  headers: Headers | Record<string, HeaderValue>;
  /** The body exactly as received: re-serialized JSON does not verify. */
  body: string | Uint8Array;
}

export interface VerifyWebhookOptions {
  /** How far the `webhook-timestamp` may be from now, in seconds. Default 300 (5 minutes). */
  toleranceSeconds?: number | undefined;
  /** The clock; default `new Date()`. */
  now?: Date | undefined;
}

const SECRET_PREFIX = 'whsec_';
const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

function header(headers: RawWebhookRequest['headers'], name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') {
    return (headers as Headers).get(name) ?? undefined;
  }
  const record = headers as Record<string, HeaderValue>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return typeof value === 'string' ? value : value?.[0];
}

function secretKey(secret: string): Buffer {
  if (typeof secret !== 'string' || !secret.startsWith(SECRET_PREFIX)) {
    throw new WebhookVerificationError('invalid_secret', 'A webhook secret starts with whsec_');
  }
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  if (key.length === 0) {
    throw new WebhookVerificationError('invalid_secret', 'The webhook secret is empty');
  }
  return key;
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` under `key` (Standard Webhooks). */
export function webhookSignature(
  key: Buffer,
  id: string,
  timestamp: number,
  body: string | Uint8Array,
): string {
  const mac = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body);
  return `v1,${mac.digest('base64')}`;
}

function matches(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

async function readRequest(
  request: Request | RawWebhookRequest,
): Promise<{ headers: RawWebhookRequest['headers']; body: string | Uint8Array }> {
  if (typeof Request !== 'undefined' && request instanceof Request) {
    return { headers: request.headers, body: new Uint8Array(await request.arrayBuffer()) };
  }
  return request as RawWebhookRequest;
}

/**
 * Checks a webhook delivery from the bridge (Standard Webhooks: `webhook-id`,
 * `webhook-timestamp`, `webhook-signature`) against the endpoint's signing secret, or several
 * while you roll a rotation out, and returns the parsed event. Pass the body exactly as it
 * arrived. Throws `WebhookVerificationError` when a header is missing, the timestamp is more
 * than five minutes from now, or no signature matches.
 *
 * @example
 * app.post('/bridge-events', express.raw({ type: 'application/json' }), async (req, res) => {
 *   const event = await verifyWebhook(
 *     { headers: req.headers, body: req.body },
 *     process.env.BRIDGE_WEBHOOK_SECRET!,
 *   );
 *   if (event.type === 'data_source.health_changed') notifyOwner(event.data);
 *   res.sendStatus(204);
 * });
 */
export async function verifyWebhook<Data = Record<string, unknown>>(
  request: Request | RawWebhookRequest,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent<Data>> {
  const keys = (typeof secret === 'string' ? [secret] : secret).map(secretKey);
  if (keys.length === 0) throw new WebhookVerificationError('invalid_secret', 'No secret given');
  const { headers, body } = await readRequest(request);
  const id = header(headers, 'webhook-id');
  const timestampText = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestampText || !signatures) {
    throw new WebhookVerificationError(
      'missing_headers',
      'webhook-id, webhook-timestamp and webhook-signature are required',
    );
  }
  if (!/^\d{1,12}$/.test(timestampText)) {
    throw new WebhookVerificationError('invalid_timestamp', 'webhook-timestamp is not a number');
  }
  const timestamp = Number(timestampText);
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(now - timestamp) > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_out_of_range',
      `webhook-timestamp is more than ${tolerance} seconds from now`,
    );
  }
  const given = signatures.split(' ').filter((s) => s.startsWith('v1,'));
  const verified = keys.some((key) => {
    const expected = webhookSignature(key, id, timestamp, body);
    return given.some((candidate) => matches(expected, candidate));
  });
  if (!verified) {
    throw new WebhookVerificationError('invalid_signature', 'No signature matches the secret');
  }
  try {
    const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
    return JSON.parse(text) as WebhookEvent<Data>;
  } catch (cause) {
    throw Object.assign(
      new WebhookVerificationError('invalid_payload', 'The signed body is not JSON'),
      { cause },
    );
  }
}
