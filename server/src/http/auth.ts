import type { NextFunction, Request, Response } from 'express';
import { ApiError, forbidden } from '../api-error';
import type { Deps, Principal } from '../deps';
import { hashApiKey, looksLikeApiKey } from '../domain/api-keys';
import { liveSession } from '../sso/session-access';
import type { SessionClaims } from '../sso/session-token';
import { lookUpApiKey, touchApiKey } from '../store/api-keys';
import { sendRateLimit } from './rate-limit';

// One answer for every failure, so a caller learns nothing about which keys exist.
const unauthorized = () =>
  new ApiError('Unauthorized', 'Missing, invalid, revoked or expired credentials', {
    code: 'invalid_credentials',
  });
// The scheme name is case-insensitive (RFC 7235 §2.1).
const BEARER = /^Bearer ([\x21-\x7e]{1,4096})$/i;
// lastUsedAt is written at most this often per key, so reads stay reads.
const TOUCH_EVERY_MS = 60_000;

/** The token of an `Authorization: Bearer …` header, or undefined. */
export const bearerToken = (header: string | undefined) =>
  header ? BEARER.exec(header.trim())?.[1] : undefined;

const sessionChecks = new WeakMap<
  Request,
  { token: string; claims: Promise<SessionClaims | null> }
>();

/** Verifies a request's session token once, however many middlewares ask (CORS, then auth). */
export function requestSession(
  deps: Deps,
  req: Request,
  token: string,
): Promise<SessionClaims | null> {
  const seen = sessionChecks.get(req);
  if (seen?.token === token) return seen.claims;
  const claims = deps.sessions.verify(token);
  sessionChecks.set(req, { token, claims });
  return claims;
}

/**
 * Resolves the `Authorization: Bearer` value to an API key's user or an embed session, and
 * counts the request against that key's or session's rate limit.
 */
export async function authenticate(deps: Deps, req: Request, res: Response): Promise<Principal> {
  const token = bearerToken(req.get('authorization'));
  if (!token) throw unauthorized();
  if (looksLikeApiKey(token)) {
    const now = deps.now();
    const limiter = deps.limits.api;
    const found = await lookUpApiKey(deps.store, hashApiKey(token), { limiter, now });
    if (!found) throw unauthorized();
    const { key } = found;
    if (key.lastUsedAt === null || now.getTime() - Date.parse(key.lastUsedAt) >= TOUCH_EVERY_MS) {
      await touchApiKey(deps.store.db, key.id, now.toISOString());
    }
    sendRateLimit(limiter.verdict(found.rateLimit), res);
    return { kind: 'apiKey', userId: key.userId, keyId: key.id };
  }
  const claims = await requestSession(deps, req, token);
  const live = claims ? await liveSession(deps, claims) : null;
  if (!live) throw unauthorized();
  sendRateLimit(await deps.limits.api.hit(`session:${live.claims.memberId}`), res);
  const { memberId, userId, orgId } = live.claims;
  const role = live.org.role as 'ADMIN' | 'MEMBER';
  return { kind: 'session', userId, orgId, memberId, role, session: live.claims, org: live.org };
}

/** Middleware for every `/api/public/*` route that needs a key or session. */
export function bearerAuth(deps: Deps) {
  return async (req: Request, res: Response, next: NextFunction) => {
    req.principal = await authenticate(deps, req, res);
    // A browser origin that is not allowed gets nothing done, whatever the credential.
    if (req.originRefused)
      throw forbidden('Origin not allowed for this organization', 'origin_not_allowed');
    next();
  };
}
