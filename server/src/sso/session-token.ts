import { jwtVerify, SignJWT } from 'jose';
import { hmacKeyCache } from './hmac-keys';

/**
 * The bridge's own embed session token: an HS256 JWT signed with BRIDGE_SESSION_SECRET.
 * Its header `typ`, issuer and audience differ from anything a host signs, so an SSO token
 * is never a session even under the same key; it starts with `eyJ`, never `bk_key_`.
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
  // A private copy: a caller mutating its buffer must not change the key. Imported once.
  const secretPromise = hmacKeyCache(1)(new Uint8Array(key));

  return {
    async issue(claims) {
      const iat = Math.floor(now().getTime() / 1000);
      const exp = iat + ttlSeconds;
      const token = await new SignJWT({
        org: claims.orgId,
        mem: claims.memberId,
        role: claims.role,
      })
        .setProtectedHeader({ alg: 'HS256', typ: SESSION_TYP })
        .setIssuer(SESSION_ISSUER)
        .setAudience(SESSION_AUDIENCE)
        .setSubject(claims.userId)
        .setIssuedAt(iat)
        .setExpirationTime(exp)
        .setJti(crypto.randomUUID())
        .sign(await secretPromise);
      return { token, expiresAt: new Date(exp * 1000) };
    },

    async verify(token) {
      if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_LENGTH) {
        return null;
      }
      try {
        const { payload } = await jwtVerify(token, await secretPromise, {
          algorithms: ['HS256'],
          typ: SESSION_TYP,
          issuer: SESSION_ISSUER,
          audience: SESSION_AUDIENCE,
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
          currentDate: now(),
          requiredClaims: ['sub', 'org', 'mem', 'role', 'iat', 'exp', 'jti'],
        });
        const { sub, org, mem, role } = payload;
        if (!isId(sub) || !isId(org) || !isId(mem) || !isRole(role)) return null;
        return { memberId: mem, userId: sub, orgId: org, role };
      } catch {
        return null;
      }
    },
  };
}
