import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';

/**
 * HS256 for the bridge's two kinds of JWT (host-signed SSO tokens, its own session tokens):
 * node:crypto's synchronous HMAC over the token's exact `header.payload` text. WebCrypto (what
 * jose verifies with) queues every HMAC as a job on libuv's thread pool and resolves it on a
 * later turn; under load that hop cost about a sixth of the SSO exchange's CPU (see
 * docs/performance.md). A 32-byte HMAC takes a few microseconds here.
 */

const BASE64URL = /^[A-Za-z0-9_-]*$/;
const SIGNATURE_BYTES = 32;

/** A key for `secret`: a string as its UTF-8 bytes (as jose and jsonwebtoken take it). */
export const hs256Key = (secret: string | Uint8Array): KeyObject =>
  createSecretKey(typeof secret === 'string' ? Buffer.from(secret, 'utf8') : Buffer.from(secret));

export const hs256Sign = (key: KeyObject, signingInput: string): Buffer =>
  createHmac('sha256', key).update(signingInput).digest();

/**
 * The signature's bytes when `signature` is the canonical base64url of 32 bytes (no padding,
 * no stray bits), else null: one text per signature, so a token can't be re-spelled.
 */
export function signatureBytes(signature: string): Buffer | null {
  if (signature.length !== 43 || !BASE64URL.test(signature)) return null;
  const bytes = Buffer.from(signature, 'base64url');
  return bytes.length === SIGNATURE_BYTES && bytes.toString('base64url') === signature
    ? bytes
    : null;
}

/** Whether `signature` (base64url) is the HS256 of `signingInput` under `key`, in constant time. */
export function hs256Matches(key: KeyObject, signingInput: string, signature: Buffer | null) {
  // Computed even for a malformed signature, so its shape does not change the time taken.
  const expected = hs256Sign(key, signingInput);
  return signature !== null && timingSafeEqual(expected, signature);
}

/** A base64url segment holding a JSON object, decoded; null for anything else. */
export function decodeJsonObject(segment: string): Record<string, unknown> | null {
  if (segment.length === 0 || !BASE64URL.test(segment)) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
