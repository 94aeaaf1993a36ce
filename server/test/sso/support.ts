import { randomBytes } from 'node:crypto';
import { Organization, SsoSession } from '@bridgekit/contract';
import { type JWTPayload, SignJWT } from 'jose';
import { expect } from 'vitest';
import {
  createPgDatabase,
  startBridge,
  type TestBridge,
  type TestResponse,
} from '../../../test/support/bridge';

/**
 * The one detail every rejected SSO token gets (bad signature or algorithm, missing claim,
 * unknown organization…), so a caller cannot tell which check failed.
 */
export const SSO_DETAIL = 'Invalid or expired SSO token';

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** An organization created through the API, with its jwtSecret. */
export async function createOrg(
  bridge: TestBridge,
  key: string,
  body: Record<string, unknown> = {},
): Promise<Organization & { jwtSecret: string }> {
  const res = await bridge.request('POST', '/api/public/organizations?include=jwtSecret', {
    key,
    body: { name: `Org ${randomBytes(4).toString('hex')}`, ...body },
  });
  if (res.status !== 201) throw new Error(`create organization: ${res.status} ${res.text}`);
  const org = Organization.parse(res.body.data);
  if (!org.jwtSecret) throw new Error('create organization: no jwtSecret');
  return { ...org, jwtSecret: org.jwtSecret };
}

/** HS256 over any claims, so tests can sign what a careless or hostile host would. */
export function signHs256(claims: Record<string, unknown>, secret: string): Promise<string> {
  return new SignJWT(claims as JWTPayload)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(new TextEncoder().encode(secret));
}

/** Valid claims for `orgId`: ten minutes, a fresh jti. */
export function claimsFor(orgId: string, extra: Record<string, unknown> = {}) {
  const iat = nowSeconds();
  return {
    email: `u-${randomBytes(4).toString('hex')}@example.com`,
    orgId,
    iat,
    exp: iat + 600,
    jti: randomBytes(12).toString('hex'),
    ...extra,
  };
}

/** The bridge's log lines of one request, parsed. */
export function logsOf(bridge: TestBridge, requestId: string): Record<string, unknown>[] {
  return bridge.logs
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.reqId === requestId);
}

export const requestId = () => `t-${randomBytes(8).toString('hex')}`;

export interface SharedPg {
  url: string;
  secretKey: string;
  sessionSecret: string;
  drop(): Promise<void>;
}

/** One fresh PostgreSQL database and one pair of bridge secrets, for several instances. */
export async function createSharedPg(): Promise<SharedPg> {
  const database = await createPgDatabase();
  return {
    ...database,
    secretKey: randomBytes(32).toString('base64'),
    sessionSecret: randomBytes(32).toString('base64url'),
  };
}

/**
 * A bridge on an existing PostgreSQL database with the given secrets. The harness's sqlite mode
 * creates no database of its own, and its env overrides win, so DATABASE_URL points it at `pg`;
 * stopping it leaves the database to `pg.drop()`.
 */
export async function startBridgeOn(
  pg: SharedPg,
  env: Record<string, string> = {},
): Promise<TestBridge> {
  const bridge = await startBridge('sqlite', {
    DATABASE_URL: pg.url,
    BRIDGE_SECRET_KEY: pg.secretKey,
    BRIDGE_SESSION_SECRET: pg.sessionSecret,
    ...env,
  });
  if (bridge.deps.store.engine !== 'postgres') throw new Error('expected a PostgreSQL store');
  return { ...bridge, engine: 'postgres', databaseUrl: pg.url };
}

// The origin each handoff code's redirect named (`&origin=`): the one that framed its sign-in.
const framedBy = new Map<string, string>();

/** The handoff code in a full-embed sign-in redirect's fragment (`…#code=<code>&origin=…`). */
export function handoffCodeOf(location: string | null): string {
  const match = /#code=([A-Za-z0-9_-]+)&origin=([^&]+)$/.exec(location ?? '');
  if (!match?.[1] || !match[2]) throw new Error(`no handoff code in ${location}`);
  framedBy.set(match[1], decodeURIComponent(match[2]));
  return match[1];
}

/**
 * The embed page's trade of a handoff code for its bearer token, as the page makes it inside
 * the frame that signed in: from the bridge's own origin, with the framing origin the browser
 * reports. `extra` and `headers` override any of it.
 */
export const redeemCode = (
  bridge: Pick<TestBridge, 'request' | 'url'>,
  code: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) =>
  bridge.request('POST', '/embed/session', {
    body: { code, framingOrigin: framedBy.get(code), ...extra },
    headers: { 'x-bridgekit-embed': '1', origin: bridge.url, ...headers },
  });

/**
 * What concurrent redemptions of one code may answer, and that no session they made lives on
 * `bridges`. One redemption wins; every other is a replay (401 `embed_code_used`), which ends
 * the session the winner started, or, overtaking it before its session was recorded, makes the
 * winner end it too: the winner answers 200, or 401 `embed_code_invalid` when a replay ended its
 * session before it answered.
 */
export async function expectNoRedemptionLives(
  responses: TestResponse[],
  bridges: Pick<TestBridge, 'request'>[],
) {
  const replays = responses.filter((r) => r.body.error?.code === 'embed_code_used');
  expect(replays.length).toBeGreaterThanOrEqual(responses.length - 1);
  for (const res of replays) expect(res.status).toBe(401);
  const winner = responses.filter((r) => !replays.includes(r));
  expect(winner.length).toBeLessThanOrEqual(1);
  const won = winner.filter((r) => r.status === 200);
  for (const res of winner.filter((r) => r.status !== 200)) {
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('embed_code_invalid');
  }
  for (const res of won) {
    for (const bridge of bridges) {
      const info = await bridge.request('GET', '/api/sso/session', {
        key: res.body.data.sessionToken,
      });
      expect(info.status).toBe(401);
    }
  }
}

/**
 * A full-embed sign-in framed by `framingOrigin` (GET /api/sso/jwt with its Referer), then the
 * embed page's trade of the handoff code for its bearer token. Throws when either is refused.
 */
export async function embedSignIn(
  bridge: Pick<TestBridge, 'request' | 'url'>,
  org: { id: string; jwtSecret: string },
  framingOrigin: string,
  claims: Record<string, unknown> = {},
): Promise<{ code: string; sessionToken: string }> {
  const jwt = await signHs256(claimsFor(org.id, claims), org.jwtSecret);
  const res = await bridge.request('GET', `/api/sso/jwt?jwt=${encodeURIComponent(jwt)}`, {
    headers: { referer: `${framingOrigin}/app` },
  });
  if (res.status !== 302) throw new Error(`embed sign-in: ${res.status} ${res.text}`);
  const code = handoffCodeOf(res.headers.get('location'));
  const traded = await redeemCode(bridge, code);
  if (traded.status !== 200) throw new Error(`embed session: ${traded.status} ${traded.text}`);
  return { code, sessionToken: traded.body.data.sessionToken as string };
}

/** A kit session (POST /api/sso/jwt) for the claims; throws when refused. */
export async function kitSignIn(
  bridge: Pick<TestBridge, 'request'>,
  org: { id: string; jwtSecret: string },
  claims: Record<string, unknown> = {},
): Promise<SsoSession> {
  const jwt = await signHs256(claimsFor(org.id, claims), org.jwtSecret);
  const res = await bridge.request('POST', '/api/sso/jwt', { body: { jwt } });
  if (res.status !== 200) throw new Error(`sign-in: ${res.status} ${res.text}`);
  return SsoSession.parse(res.body.data);
}
