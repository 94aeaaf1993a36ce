import type { Role } from '@bridgekit/contract';
import { SignJWT } from 'jose';

/** The user a host backend vouches for. */
export interface SsoUser {
  email: string;
  firstName?: string | undefined;
  lastName?: string | undefined;
  /** Applied only when the bridge creates the membership; default `MEMBER`. */
  role?: Role | undefined;
  groups?: string[] | undefined;
}

export interface CreateSsoTokenOptions {
  /** The organization's `jwtSecret`, exactly as the API returned it. */
  secret: string;
  orgId: string;
  user: SsoUser;
  /** Seconds, or `'30s'`, `'10m'`, `'1h'`; at most one hour. Default `'10m'`. */
  expiresIn?: string | number | undefined;
  /** Single-use id; default a random UUID. */
  jti?: string | undefined;
}

const MAX_LIFETIME_SECONDS = 3600;
const DURATION = /^(\d+)\s*(s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?)$/i;

function lifetimeSeconds(expiresIn: string | number): number {
  let seconds: number;
  if (typeof expiresIn === 'number') {
    seconds = expiresIn;
  } else {
    const match = DURATION.exec(expiresIn.trim());
    if (!match)
      throw new TypeError(`expiresIn must look like '30s', '10m' or '1h', got '${expiresIn}'`);
    const unit = match[2]!.toLowerCase()[0];
    seconds = Number(match[1]) * (unit === 'h' ? 3600 : unit === 'm' ? 60 : 1);
  }
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_LIFETIME_SECONDS) {
    throw new RangeError('expiresIn must be a whole number of seconds from 1 to 3600 (one hour)');
  }
  return seconds;
}

function requireText(value: unknown, name: string): asserts value is string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new TypeError(`${name} must be a non-empty string`);
  }
}

/**
 * Signs an SSO token for one user of one organization (HS256 with the organization's
 * jwtSecret as UTF-8 bytes), to exchange at `{bridge}/api/sso/jwt`. Call it on your
 * backend only: the secret must never reach a browser.
 *
 * @example
 * const jwt = await createSsoToken({
 *   secret: process.env.BRIDGE_ORG_SECRET!,
 *   orgId: 'org_01JD7ZK3Q5X8M2',
 *   user: { email: 'ada@example.com', firstName: 'Ada', role: 'MEMBER' },
 * });
 */
export async function createSsoToken(options: CreateSsoTokenOptions): Promise<string> {
  const { secret, orgId, user, expiresIn = '10m', jti = crypto.randomUUID() } = options;
  requireText(secret, 'secret');
  requireText(orgId, 'orgId');
  requireText(user?.email, 'user.email');
  requireText(jti, 'jti');
  const lifetime = lifetimeSeconds(expiresIn);

  const claims: Record<string, unknown> = { email: user.email, orgId };
  if (user.firstName !== undefined) claims.firstName = user.firstName;
  if (user.lastName !== undefined) claims.lastName = user.lastName;
  if (user.role !== undefined) claims.role = user.role;
  if (user.groups !== undefined) claims.groups = user.groups;

  const iat = Math.floor(Date.now() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt(iat)
    .setExpirationTime(iat + lifetime)
    .setJti(jti)
    .sign(new TextEncoder().encode(secret));
}
