import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { type NetworkPolicy, NetworkPolicyError, resolveChecked } from '../verify/network-policy';

export interface SendLimits {
  /** The whole attempt: resolve, connect, send, and the answer's status and body. */
  timeoutMs: number;
  /** Bytes of the answer read before it is cut (the body is never kept). */
  maxResponseBytes: number;
}

export const DEFAULT_SEND_LIMITS: SendLimits = { timeoutMs: 15_000, maxResponseBytes: 64 * 1024 };

/** What one attempt got: the receiver's status, or why none came (`code: detail`). */
export type SendResult = { status: number } | { error: string };

/** A lookup that answers the one address already checked, so no second resolve can swap it. */
const pinned =
  (address: string): LookupFunction =>
  (_host, options, callback) => {
    const family = isIP(address);
    if ((options as { all?: boolean }).all) {
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address, family },
      ]);
    } else callback(null, address, family);
  };

function failure(err: unknown): string {
  if (err instanceof NetworkPolicyError) {
    return 'address_not_allowed: the receiver resolves to an address the network policy refuses';
  }
  const code = (err as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ETIMEDOUT':
      return 'timeout: the receiver did not answer in time';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host_not_found: the receiver host did not resolve';
    case 'ECONNREFUSED':
      return 'connection_refused: the receiver refused the connection';
    case 'ECONNRESET':
      return 'connection_closed: the receiver closed the connection';
    default:
      return `connection_failed: ${typeof code === 'string' ? code : 'the request failed'}`;
  }
}

/**
 * POSTs `body` to `url` under the verify network policy: the host is resolved once and every
 * address checked (private ones refused unless allowed), the connection goes to that address,
 * redirects are not followed, and the attempt is bounded in time and in bytes read.
 */
export async function sendWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  policy: NetworkPolicy,
  limits: SendLimits = DEFAULT_SEND_LIMITS,
): Promise<SendResult> {
  const target = new URL(url);
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  try {
    const { addresses, servername } = await resolveChecked(target.hostname, policy, deadline);
    const status = await post(target, addresses[0], servername, headers, body, limits, deadline);
    return { status };
  } catch (err) {
    return { error: deadline.aborted ? failure({ code: 'ETIMEDOUT' }) : failure(err) };
  }
}

function post(
  target: URL,
  address: string,
  servername: string | undefined,
  headers: Record<string, string>,
  body: string,
  limits: SendLimits,
  signal: AbortSignal,
): Promise<number> {
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      target,
      {
        method: 'POST',
        lookup: pinned(address),
        ...(servername ? { servername } : {}),
        signal,
        agent: false,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'Bridgekit-Webhooks/1',
        },
      },
      (response) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          // Enough to know it answered; the rest is never read.
          if (read > limits.maxResponseBytes) response.destroy();
        });
        response.on('close', () => resolve(response.statusCode ?? 0));
        response.on('error', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
