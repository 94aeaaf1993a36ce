import { base64url, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';
import {
  claimsFor,
  createOrg,
  logsOf,
  nowSeconds,
  requestId,
  SSO_DETAIL,
  signHs256,
} from './support';

const segment = (value: unknown) => base64url.encode(JSON.stringify(value));
const unsigned = (alg: string, claims: Record<string, unknown>) =>
  `${segment({ alg, typ: 'JWT' })}.${segment(claims)}.`;

function without(claims: Record<string, unknown>, name: string) {
  const { [name]: _dropped, ...rest } = claims;
  return rest;
}

// RSA key generation is slow: one key pair per algorithm for the whole file.
const keyPairs = new Map<string, ReturnType<typeof generateKeyPair>>();

async function signAsymmetric(alg: 'RS256' | 'ES256', claims: Record<string, unknown>) {
  if (!keyPairs.has(alg)) keyPairs.set(alg, generateKeyPair(alg));
  const { privateKey } = await keyPairs.get(alg)!;
  return new SignJWT(claims as JWTPayload).setProtectedHeader({ alg }).sign(privateKey);
}

describe.each(ENGINES)('POST /api/sso/jwt security on %s', (engine) => {
  let bridge: TestBridge;
  let orgA: { id: string; jwtSecret: string };
  let orgB: { id: string; jwtSecret: string };

  beforeAll(async () => {
    bridge = await startBridge(engine);
    const admin = await bridge.newUser();
    orgA = await createOrg(bridge, admin.key);
    orgB = await createOrg(bridge, admin.key);
  });
  afterAll(() => bridge.stop());

  const exchange = (jwt: unknown, id = requestId()) =>
    bridge.request('POST', '/api/sso/jwt', { body: { jwt }, headers: { 'x-request-id': id } });

  // [case, token, the reason the log must name]
  const rejected: [string, () => Promise<string>, string][] = [
    ['alg none', async () => unsigned('none', claimsFor(orgA.id)), 'alg_not_allowed'],
    ['alg nOnE', async () => unsigned('nOnE', claimsFor(orgA.id)), 'alg_not_allowed'],
    [
      'HS512 with the right secret',
      () =>
        new SignJWT(claimsFor(orgA.id))
          .setProtectedHeader({ alg: 'HS512' })
          .sign(new TextEncoder().encode(orgA.jwtSecret)),
      'alg_not_allowed',
    ],
    ['RS256', () => signAsymmetric('RS256', claimsFor(orgA.id)), 'alg_not_allowed'],
    ['ES256', () => signAsymmetric('ES256', claimsFor(orgA.id)), 'alg_not_allowed'],
    [
      'a wrong secret',
      () => signHs256(claimsFor(orgA.id), 'not-the-secret-of-this-organization-at-all'),
      'bad_signature',
    ],
    [
      "another organization's secret",
      () => signHs256(claimsFor(orgA.id), orgB.jwtSecret),
      'bad_signature',
    ],
    [
      'no email',
      () => signHs256(without(claimsFor(orgA.id), 'email'), orgA.jwtSecret),
      'missing_claim:email',
    ],
    [
      'no orgId',
      () => signHs256(without(claimsFor(orgA.id), 'orgId'), orgA.jwtSecret),
      'missing_claim:orgId',
    ],
    [
      'no iat',
      () => signHs256(without(claimsFor(orgA.id), 'iat'), orgA.jwtSecret),
      'missing_claim:iat',
    ],
    [
      'no exp',
      () => signHs256(without(claimsFor(orgA.id), 'exp'), orgA.jwtSecret),
      'missing_claim:exp',
    ],
    [
      'expired',
      () =>
        signHs256(
          claimsFor(orgA.id, { iat: nowSeconds() - 1200, exp: nowSeconds() - 600 }),
          orgA.jwtSecret,
        ),
      'expired',
    ],
    [
      'iat 2 minutes in the future',
      () =>
        signHs256(
          claimsFor(orgA.id, { iat: nowSeconds() + 120, exp: nowSeconds() + 720 }),
          orgA.jwtSecret,
        ),
      'iat_in_future',
    ],
    [
      'a replayed jti',
      async () => {
        const token = await signHs256(claimsFor(orgA.id), orgA.jwtSecret);
        const first = await exchange(token);
        if (first.status !== 200) throw new Error(`first use: ${first.status} ${first.text}`);
        return token;
      },
      'jti_replayed',
    ],
    [
      'an unknown orgId',
      () => signHs256(claimsFor('org_0000000000000000nobody'), orgA.jwtSecret),
      'unknown_org',
    ],
    [
      'a numeric orgId',
      () => signHs256(claimsFor(orgA.id, { orgId: 42 }), orgA.jwtSecret),
      'invalid_claim:orgId',
    ],
    ['a plain word', async () => 'not-a-jwt', 'malformed'],
    ['three dots', async () => '...', 'malformed'],
    ['segments that are not JSON', async () => 'a.b.c', 'malformed'],
    [
      'four segments',
      async () => `${await signHs256(claimsFor(orgA.id), orgA.jwtSecret)}.x`,
      'malformed',
    ],
    [
      'a space inside',
      async () => (await signHs256(claimsFor(orgA.id), orgA.jwtSecret)).replace('.', ' .'),
      'malformed',
    ],
    ['exactly 8192 characters', async () => 'a'.repeat(8192), 'malformed'],
  ];

  it.each(rejected)(
    '%s → 401 Unauthorized, reason in the log only',
    async (_case, make, reason) => {
      const id = requestId();
      const res = await exchange(await make(), id);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        error: { title: 'Unauthorized', code: 'sso_token_invalid', detail: SSO_DETAIL },
      });
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      const reasons = logsOf(bridge, id).map(
        (entry) => (entry.err as { message?: string })?.message,
      );
      expect(reasons).toContain(`sso: ${reason}`);
    },
  );

  it('names the limit when a validly signed token lives over it (1 h 1 s)', async () => {
    const id = requestId();
    const token = await signHs256(
      claimsFor(orgA.id, { iat: nowSeconds(), exp: nowSeconds() + 3601 }),
      orgA.jwtSecret,
    );
    const res = await exchange(token, id);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      error: {
        title: 'Unauthorized',
        code: 'sso_token_lifetime_too_long',
        detail: "The SSO token's lifetime (exp - iat) is over the limit of 3600 seconds",
        params: { limit: 3600 },
      },
    });
    const reasons = logsOf(bridge, id).map((e) => (e.err as { message?: string })?.message);
    expect(reasons).toContain('sso: lifetime_too_long');
  });

  it('says nothing of the lifetime of a token signed with another secret', async () => {
    const token = await signHs256(
      claimsFor(orgA.id, { iat: nowSeconds(), exp: nowSeconds() + 3601 }),
      orgB.jwtSecret,
    );
    const res = await exchange(token);
    expect(res.body.error).toEqual({
      title: 'Unauthorized',
      code: 'sso_token_invalid',
      detail: SSO_DETAIL,
    });
  });

  it('gives every rejected token the same detail', async () => {
    const details = new Set<string>();
    for (const [, make] of rejected) {
      const res = await exchange(await make());
      expect(res.status).toBe(401);
      details.add(res.body.error.detail);
    }
    expect([...details]).toEqual([SSO_DETAIL]);
  });

  it('accepts a valid token (control)', async () => {
    const res = await exchange(await signHs256(claimsFor(orgA.id), orgA.jwtSecret));
    expect(res.status).toBe(200);
  });

  it('never writes a posted token to the log', async () => {
    const good = await signHs256(claimsFor(orgA.id), orgA.jwtSecret);
    const bad = await signHs256(claimsFor(orgA.id), orgB.jwtSecret);
    expect((await exchange(good)).status).toBe(200);
    expect((await exchange(bad)).status).toBe(401);
    const log = bridge.logs.join('\n');
    for (const token of [good, bad]) expect(log).not.toContain(token.split('.')[2]);
    expect(log).not.toContain(orgA.jwtSecret);
  });

  it('answers 8193 characters with 400 ValidationError on jwt', async () => {
    const res = await exchange('a'.repeat(8193));
    expect(res.status).toBe(400);
    expect(res.body.error.title).toBe('ValidationError');
    expect(Object.keys(res.body.error.fieldErrors)).toEqual(['jwt']);
  });

  it('answers a validly signed token over 8192 characters with 400 ValidationError', async () => {
    const token = await signHs256(claimsFor(orgA.id, { pad: 'x'.repeat(9000) }), orgA.jwtSecret);
    const res = await exchange(token);
    expect(res.status).toBe(400);
    expect(res.body.error.title).toBe('ValidationError');
    expect(res.body.error.fieldErrors).toHaveProperty('jwt');
  });

  it('answers a body without jwt with 400 ValidationError on jwt', async () => {
    const res = await bridge.request('POST', '/api/sso/jwt', { body: {} });
    expect(res.status).toBe(400);
    expect(res.body.error.title).toBe('ValidationError');
    expect(res.body.error.fieldErrors).toEqual({ jwt: 'Required' });
  });

  it('answers an empty jwt with 400 ValidationError on jwt', async () => {
    const res = await exchange('');
    expect(res.status).toBe(400);
    expect(res.body.error.title).toBe('ValidationError');
    expect(res.body.error.fieldErrors).toHaveProperty('jwt');
  });

  it('answers a jwt that is not a string with 400 ValidationError on jwt', async () => {
    const res = await exchange(12345);
    expect(res.status).toBe(400);
    expect(res.body.error.title).toBe('ValidationError');
    expect(res.body.error.fieldErrors).toHaveProperty('jwt');
  });

  it('answers an unknown body field with 400 ValidationError', async () => {
    const jwt = await signHs256(claimsFor(orgA.id), orgA.jwtSecret);
    const res = await bridge.request('POST', '/api/sso/jwt', { body: { jwt, extra: 1 } });
    expect(res.status).toBe(400);
    expect(res.body.error.title).toBe('ValidationError');
    expect(res.body.error.fieldErrors).toEqual({ extra: 'Unknown field' });
  });

  it('answers malformed JSON with 400 ValidationError', async () => {
    const res = await bridge.request('POST', '/api/sso/jwt', {
      rawBody: '{"jwt":',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.title).toBe('ValidationError');
  });

  it('answers a form-encoded body with 415 UnsupportedMediaType', async () => {
    const jwt = await signHs256(claimsFor(orgA.id), orgA.jwtSecret);
    const res = await bridge.request('POST', '/api/sso/jwt', {
      rawBody: `jwt=${jwt}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(415);
    expect(res.body.error.title).toBe('UnsupportedMediaType');
  });

  it('answers a JSON body sent as text/plain with 415 UnsupportedMediaType', async () => {
    const jwt = await signHs256(claimsFor(orgA.id), orgA.jwtSecret);
    const res = await bridge.request('POST', '/api/sso/jwt', {
      rawBody: JSON.stringify({ jwt }),
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(415);
    expect(res.body.error.title).toBe('UnsupportedMediaType');
  });
});
