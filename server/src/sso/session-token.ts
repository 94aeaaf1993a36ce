import { type KeyObject, randomUUID } from 'node:crypto';
import { pooledRandomBytes } from '../domain/random-pool';
import { decodeJsonObject, hs256Key, hs256Matches, hs256Sign, signatureBytes } from './hs256';

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

/** Who a session is for, fixed when it starts (its role is what the store says now). */
export interface SessionGrant {
  memberId: string;
  userId: string;
  orgId: string;
  /** The role at sign-in; requests use the membership's current role from the store. */
  role: 'ADMIN' | 'MEMBER';
  /**
   * `kit`: from `POST /api/sso/jwt`, for the component kit in a host page. `embed`: from the
   * full-embed sign-in, valid only while the organization has full embed on and still allows
   * `framingOrigin`.
   */
  kind?: SessionKind;
  framingOrigin?: string | null;
}

export type SessionKind = 'kit' | 'embed';

/** A verified session token's claims. */
export interface SessionClaims extends Required<SessionGrant> {
  /** One id for the whole session, kept by renewals; logout revokes it. */
  sessionId: string;
  signedInAt: Date;
  /** Renewals never go past this (BRIDGE_EMBED_SESSION_MAX_HOURS after sign-in). */
  absoluteExpiresAt: Date;
  expiresAt: Date;
}

export interface IssuedSession {
  token: string;
  expiresAt: Date;
  claims: SessionClaims;
}

export interface SessionTokens {
  /** A new session for `grant`. */
  issue(grant: SessionGrant): Promise<IssuedSession>;
  /**
   * The next token of a verified session: same session id, sign-in time and absolute limit, a
   * fresh expiry that never passes the limit; null once the limit is reached.
   */
  renew(claims: SessionClaims): Promise<IssuedSession | null>;
  /** The claims, or null on any failure: signature, expiry, typ/issuer/audience, shape. */
  verify(token: string): Promise<SessionClaims | null>;
}

export const SESSION_TYP = 'bk-session+jwt';
/**
 * The token format this release writes (claim `v`). It reads this one and the previous
 * release's (format 1, which had no `v`), so sessions live through a rolling upgrade; the
 * previous release ignores `v`, so they live through a rollback too.
 */
export const SESSION_FORMAT = 2;
const READABLE_FORMATS = new Set([1, SESSION_FORMAT]);
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
export const DEFAULT_SESSION_MAX_AGE_SECONDS = 12 * 3600;

const isKind = (value: unknown): value is SessionKind => value === 'kit' || value === 'embed';
const isSeconds = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value);

/** The token payload for `claims`; the short claim names keep tokens small. */
function payloadOf(claims: SessionClaims) {
  const seconds = (d: Date) => Math.floor(d.getTime() / 1000);
  return {
    v: SESSION_FORMAT,
    org: claims.orgId,
    mem: claims.memberId,
    role: claims.role,
    sid: claims.sessionId,
    knd: claims.kind,
    ...(claims.framingOrigin ? { fo: claims.framingOrigin } : {}),
    sat: seconds(claims.signedInAt),
    aex: seconds(claims.absoluteExpiresAt),
    iss: SESSION_ISSUER,
    aud: SESSION_AUDIENCE,
    sub: claims.userId,
    exp: seconds(claims.expiresAt),
    jti: randomUUID(),
  };
}

/** Claims from a payload whose signature checked out, or null when any is missing or wrong. */
function claimsOf(payload: Record<string, unknown>, nowSeconds: number): SessionClaims | null {
  const { v = 1, iss, aud, sub, org, mem, role, iat, exp, jti, sid, knd, fo, sat, aex } = payload;
  if (!READABLE_FORMATS.has(v as number)) return null;
  if (iss !== SESSION_ISSUER || aud !== SESSION_AUDIENCE) return null;
  if (!isSeconds(iat) || !isSeconds(exp) || typeof jti !== 'string') return null;
  if (!isSeconds(sat) || !isSeconds(aex) || !isId(sid) || !isKind(knd)) return null;
  if (fo !== undefined && (typeof fo !== 'string' || fo.length > 300)) return null;
  if (exp <= nowSeconds - CLOCK_TOLERANCE_SECONDS) return null;
  if (iat > nowSeconds + CLOCK_TOLERANCE_SECONDS) return null;
  if (!isId(sub) || !isId(org) || !isId(mem) || !isRole(role)) return null;
  return {
    memberId: mem,
    userId: sub,
    orgId: org,
    role,
    kind: knd,
    framingOrigin: typeof fo === 'string' ? fo : null,
    sessionId: sid,
    signedInAt: new Date(sat * 1000),
    absoluteExpiresAt: new Date(aex * 1000),
    expiresAt: new Date(exp * 1000),
  };
}

type Lifetime = Pick<SessionClaims, 'sessionId' | 'signedInAt' | 'absoluteExpiresAt'>;

/**
 * A token for `grant` in the session `life` describes: `ttlSeconds` from now, never past its
 * absolute limit; null once that limit is reached.
 */
function mint(
  { secret, ttlSeconds, now }: { secret: KeyObject; ttlSeconds: number; now: () => Date },
  grant: SessionGrant,
  life: Lifetime,
): IssuedSession | null {
  const iat = Math.floor(now().getTime() / 1000);
  const exp = Math.min(iat + ttlSeconds, Math.floor(life.absoluteExpiresAt.getTime() / 1000));
  if (exp <= iat) return null;
  const claims: SessionClaims = {
    memberId: grant.memberId,
    userId: grant.userId,
    orgId: grant.orgId,
    role: grant.role,
    kind: grant.kind ?? 'kit',
    framingOrigin: grant.framingOrigin ?? null,
    ...life,
    expiresAt: new Date(exp * 1000),
  };
  const payload = Buffer.from(JSON.stringify({ ...payloadOf(claims), iat })).toString('base64url');
  const input = `${HEADER}.${payload}`;
  return {
    token: `${input}.${hs256Sign(secret, input).toString('base64url')}`,
    expiresAt: claims.expiresAt,
    claims,
  };
}

/** The claims of a token signed with `secret`, or null on any failure. */
function verifySessionToken(
  secret: KeyObject,
  token: string,
  now: () => Date,
): SessionClaims | null {
  if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_LENGTH) {
    return null;
  }
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const [header, payload, signature] = parts as [string, string, string];
  // Only the header the bridge writes: alg and typ fixed, nothing else to interpret.
  if (header !== HEADER) return null;
  if (!hs256Matches(secret, `${header}.${payload}`, signatureBytes(signature))) return null;
  const claims = decodeJsonObject(payload);
  return claims ? claimsOf(claims, now().getTime() / 1000) : null;
}

export function createSessionTokens(options: {
  key: Uint8Array;
  /** Lifetime of one token; renewals slide it. */
  ttlSeconds?: number;
  /** How long after sign-in renewals stop. */
  maxAgeSeconds?: number;
  now?: () => Date;
}): SessionTokens {
  const {
    key,
    ttlSeconds = DEFAULT_SESSION_TTL_SECONDS,
    maxAgeSeconds = DEFAULT_SESSION_MAX_AGE_SECONDS,
    now = () => new Date(),
  } = options;
  if (!(key instanceof Uint8Array) || key.length < MIN_KEY_BYTES) {
    throw new TypeError(`Session key must be at least ${MIN_KEY_BYTES} bytes`);
  }
  for (const [name, value] of [
    ['ttlSeconds', ttlSeconds],
    ['maxAgeSeconds', maxAgeSeconds],
  ] as const) {
    if (!Number.isInteger(value) || value <= 0) {
      throw new TypeError(`${name} must be a positive integer`);
    }
  }
  // A private copy: a caller mutating its buffer must not change the key.
  const secret = hs256Key(key);

  const minting = { secret, ttlSeconds, now };
  return {
    async issue(grant) {
      const iat = Math.floor(now().getTime() / 1000);
      return mint(minting, grant, {
        sessionId: pooledRandomBytes(16).toString('base64url'),
        signedInAt: new Date(iat * 1000),
        absoluteExpiresAt: new Date((iat + maxAgeSeconds) * 1000),
      }) as IssuedSession;
    },

    async renew(claims) {
      return mint(minting, claims, claims);
    },

    async verify(token) {
      return verifySessionToken(secret, token, now);
    },
  };
}
