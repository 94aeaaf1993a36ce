import { createHmac, createSecretKey, randomUUID, timingSafeEqual } from 'node:crypto';

/**
 * The bridge's own embed session token: an HS256 JWT signed with BRIDGE_SESSION_SECRET.
 * Its header `typ`, issuer and audience differ from anything a host signs, so an SSO token
 * is never a session even under the same key; it starts with `eyJ`, never `bk_key_`.
 *
 * The bridge both signs and checks these (hosts never see inside them), so it does so with
 * node:crypto's synchronous HMAC rather than through WebCrypto's job queue: it runs on every
 * SSO exchange and every request an embed session makes. The tokens are standard JWTs
 * (jose verifies them in the tests); only the exact header the bridge writes is accepted.
 */

export interface SessionClaims {
  memberId: string;
  userId: string;
  orgId: string;
  role: 'ADMIN' | 'MEMBER';
}

export interface SessionTokens {
  issue(claims: SessionClaims): Promise<{ token: string; expiresAt: Date }>;
  /** The claims, or null on any failure: signature, expiry, typ/issuer/audience, shape. */
  verify(token: string): Promise<SessionClaims | null>;
}

export const SESSION_TYP = 'bk-session+jwt';
export const SESSION_ISSUER = 'bridgekit';
export const SESSION_AUDIENCE = 'bridgekit-session';
export const DEFAULT_SESSION_TTL_SECONDS = 900;

const CLOCK_TOLERANCE_SECONDS = 5;
const MAX_TOKEN_LENGTH = 4096;
const MIN_KEY_BYTES = 32;

const isRole = (value: unknown): value is SessionClaims['role'] =>
  value === 'ADMIN' || value === 'MEMBER';
const isId = (value: unknown): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= 64;

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: SESSION_TYP })).toString(
  'base64url',
);
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const SIGNATURE_BYTES = 32;

function parsePayload(segment: string): Record<string, unknown> | null {
  if (!BASE64URL.test(segment)) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

export function createSessionTokens(options: {
  key: Uint8Array;
  ttlSeconds?: number;
  now?: () => Date;
}): SessionTokens {
  const { key, ttlSeconds = DEFAULT_SESSION_TTL_SECONDS, now = () => new Date() } = options;
  if (!(key instanceof Uint8Array) || key.length < MIN_KEY_BYTES) {
    throw new TypeError(`Session key must be at least ${MIN_KEY_BYTES} bytes`);
  }
  if (!Number.isInteger(ttlSeconds) || ttlSeconds <= 0) {
    throw new TypeError('ttlSeconds must be a positive integer');
  }
  // A private copy: a caller mutating its buffer must not change the key.
  const secret = createSecretKey(Buffer.from(key));
  const sign = (input: string) => createHmac('sha256', secret).update(input).digest();

  return {
    async issue(claims) {
      const iat = Math.floor(now().getTime() / 1000);
      const exp = iat + ttlSeconds;
      const payload = Buffer.from(
        JSON.stringify({
          org: claims.orgId,
          mem: claims.memberId,
          role: claims.role,
          iss: SESSION_ISSUER,
          aud: SESSION_AUDIENCE,
          sub: claims.userId,
          iat,
          exp,
          jti: randomUUID(),
        }),
      ).toString('base64url');
      const input = `${HEADER}.${payload}`;
      return {
        token: `${input}.${sign(input).toString('base64url')}`,
        expiresAt: new Date(exp * 1000),
      };
    },

    async verify(token) {
      if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_LENGTH) {
        return null;
      }
      const parts = token.split('.');
      if (parts.length !== 3) return null;
      const [header, payload, signature] = parts as [string, string, string];
      // Only the header the bridge writes: alg and typ fixed, nothing else to interpret.
      if (header !== HEADER || !BASE64URL.test(signature)) return null;
      const given = Buffer.from(signature, 'base64url');
      if (given.length !== SIGNATURE_BYTES) return null;
      if (!timingSafeEqual(given, sign(`${header}.${payload}`))) return null;

      const claims = parsePayload(payload);
      if (!claims) return null;
      const { iss, aud, sub, org, mem, role, iat, exp, jti } = claims;
      if (iss !== SESSION_ISSUER || aud !== SESSION_AUDIENCE) return null;
      if (typeof iat !== 'number' || typeof exp !== 'number' || typeof jti !== 'string')
        return null;
      const nowSeconds = now().getTime() / 1000;
      if (exp <= nowSeconds - CLOCK_TOLERANCE_SECONDS) return null;
      if (iat > nowSeconds + CLOCK_TOLERANCE_SECONDS) return null;
      if (!isId(sub) || !isId(org) || !isId(mem) || !isRole(role)) return null;
      return { memberId: mem, userId: sub, orgId: org, role };
    },
  };
}
