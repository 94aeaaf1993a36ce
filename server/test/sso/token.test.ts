import { base64url, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import jwt from 'jsonwebtoken';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { hs256Matches } from '../../src/sso/hs256';
import { type SsoTokenDeps, verifySsoToken } from '../../src/sso/token';

// Watched, not replaced: counts the signature checks.
vi.mock('../../src/sso/hs256', async (original) => {
  const actual = await original<typeof import('../../src/sso/hs256')>();
  return { ...actual, hs256Matches: vi.fn(actual.hs256Matches) };
});

const NOW = new Date('2026-03-01T12:00:00.000Z');
const T = Math.floor(NOW.getTime() / 1000);
const SECRET_A = 'q0Jm3p5Zb9xJcT6yVx2uQ1nE4rK8sW7dH0fL5gA3bCk';
const SECRET_B = 'Zp8Lm2Qx7Vn4Rt1Ks9Jh6Gf3Dd0Ss5Aa8Ww2Ee7Yy1U';
const encoder = new TextEncoder();

function fakeDeps() {
  const secrets = new Map([
    ['org_aaaaaaaaaaaa', SECRET_A],
    ['org_bbbbbbbbbbbb', SECRET_B],
  ]);
  const used = new Map<string, Date>();
  const deps = {
    findOrgSecret: vi.fn(async (orgId: string) => secrets.get(orgId) ?? null),
    consumeJti: vi.fn(async (orgId: string, jti: string, expiresAt: Date) => {
      const key = `${orgId}:${jti}`;
      if (used.has(key)) return false;
      used.set(key, expiresAt);
      return true;
    }),
    now: () => new Date(NOW),
  } satisfies SsoTokenDeps;
  return deps;
}

const base = (): Record<string, unknown> => ({
  email: 'ada@example.com',
  orgId: 'org_aaaaaaaaaaaa',
  iat: T,
  exp: T + 600,
});

// Claims of any type, so tests can sign what a careless or hostile host would.
function hs256(payload: Record<string, unknown>, secret = SECRET_A): Promise<string> {
  return new SignJWT(payload as JWTPayload)
    .setProtectedHeader({ alg: 'HS256' })
    .sign(encoder.encode(secret));
}

const segment = (value: unknown) => base64url.encode(JSON.stringify(value));

describe('verifySsoToken: accepted', () => {
  it('accepts a minimal token and returns its claims', async () => {
    const token = await hs256(base());
    expect(await verifySsoToken(token, fakeDeps())).toEqual({
      ok: true,
      claims: { email: 'ada@example.com', orgId: 'org_aaaaaaaaaaaa', iat: T, exp: T + 600 },
    });
  });

  it('returns the optional claims and drops unknown ones', async () => {
    const token = await hs256({
      ...base(),
      firstName: 'Ada',
      lastName: 'Lovelace',
      role: 'ADMIN',
      groups: ['eng', 'ops'],
      jti: 'jti-1',
      aud: 'anything',
      custom: { nested: true },
    });
    expect(await verifySsoToken(token, fakeDeps())).toEqual({
      ok: true,
      claims: {
        email: 'ada@example.com',
        orgId: 'org_aaaaaaaaaaaa',
        iat: T,
        exp: T + 600,
        firstName: 'Ada',
        lastName: 'Lovelace',
        role: 'ADMIN',
        groups: ['eng', 'ops'],
        jti: 'jti-1',
      },
    });
  });

  it('accepts a lifetime of exactly one hour', async () => {
    const token = await hs256({ ...base(), exp: T + 3600 });
    expect((await verifySsoToken(token, fakeDeps())).ok).toBe(true);
  });

  it('accepts iat in the future within the 30 s tolerance', async () => {
    const token = await hs256({ ...base(), iat: T + 30, exp: T + 630 });
    expect((await verifySsoToken(token, fakeDeps())).ok).toBe(true);
  });

  it('accepts exp in the past within the 30 s tolerance', async () => {
    const token = await hs256({ ...base(), iat: T - 600, exp: T - 29 });
    expect((await verifySsoToken(token, fakeDeps())).ok).toBe(true);
  });

  it('accepts a token signed with the other organization secret for that organization', async () => {
    const token = await hs256({ ...base(), orgId: 'org_bbbbbbbbbbbb' }, SECRET_B);
    expect((await verifySsoToken(token, fakeDeps())).ok).toBe(true);
  });

  it('consumes a jti until exp plus the tolerance, after the checks, with the checked claims', async () => {
    const deps = fakeDeps();
    const token = await hs256({ ...base(), jti: 'once', role: 'ADMIN', aud: 'dropped' });
    expect((await verifySsoToken(token, deps)).ok).toBe(true);
    expect(deps.consumeJti).toHaveBeenCalledWith(
      'org_aaaaaaaaaaaa',
      'once',
      new Date((T + 600 + 30) * 1000),
      { ...base(), jti: 'once', role: 'ADMIN' },
    );
  });

  it('keeps the same jti apart per organization', async () => {
    const deps = fakeDeps();
    const a = await hs256({ ...base(), jti: 'shared' });
    const b = await hs256({ ...base(), orgId: 'org_bbbbbbbbbbbb', jti: 'shared' }, SECRET_B);
    expect((await verifySsoToken(a, deps)).ok).toBe(true);
    expect((await verifySsoToken(b, deps)).ok).toBe(true);
  });
});

describe('verifySsoToken: a rotated secret in its grace period', () => {
  const SECRET_NEW = 'Nw3Kp9Lm2Qx7Vn4Rt1Ks9Jh6Gf3Dd0Ss5Aa8Ww2Ee7Y';
  const rotated = () => ({
    ...fakeDeps(),
    findOrgSecret: vi.fn(async () => [SECRET_NEW, SECRET_A] as const),
  });
  afterEach(() => vi.restoreAllMocks());

  it('accepts a token signed with the current or with the previous secret', async () => {
    for (const secret of [SECRET_NEW, SECRET_A]) {
      const result = await verifySsoToken(await hs256(base(), secret), rotated());
      expect(result.ok).toBe(true);
    }
  });

  it('refuses a token of neither secret as a bad signature', async () => {
    const result = await verifySsoToken(await hs256(base(), SECRET_B), rotated());
    expect(result).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it("answers with the matching secret's reason, not the other's bad signature", async () => {
    const expired = await hs256({ ...base(), iat: T - 700, exp: T - 100 }, SECRET_A);
    expect(await verifySsoToken(expired, rotated())).toEqual({ ok: false, reason: 'expired' });
  });

  it('checks the signature with every secret, whichever matches, so timing does not tell', async () => {
    const verify = vi.mocked(hs256Matches);
    verify.mockClear();
    await verifySsoToken(await hs256(base(), SECRET_NEW), rotated());
    expect(verify).toHaveBeenCalledTimes(2);
    verify.mockClear();
    await verifySsoToken(await hs256(base(), SECRET_A), rotated());
    expect(verify).toHaveBeenCalledTimes(2);
  });
});

describe('verifySsoToken: interoperability', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('accepts a token from jsonwebtoken signed with the secret string', async () => {
    const token = jwt.sign({ email: 'ada@example.com', orgId: 'org_aaaaaaaaaaaa' }, SECRET_A, {
      algorithm: 'HS256',
      expiresIn: '10m',
    });
    const result = await verifySsoToken(token, fakeDeps());
    expect(result).toEqual({
      ok: true,
      claims: { email: 'ada@example.com', orgId: 'org_aaaaaaaaaaaa', iat: T, exp: T + 600 },
    });
  });

  it('accepts a token from jose SignJWT with the secret as UTF-8 bytes', async () => {
    const token = await new SignJWT({ email: 'ada@example.com', orgId: 'org_aaaaaaaaaaaa' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(SECRET_A));
    const result = await verifySsoToken(token, fakeDeps());
    expect(result).toEqual({
      ok: true,
      claims: { email: 'ada@example.com', orgId: 'org_aaaaaaaaaaaa', iat: T, exp: T + 600 },
    });
  });
});

describe('verifySsoToken: refused', () => {
  const payload = segment(base());
  const fakeSignature = base64url.encode('not a real signature');

  const cases: Array<[string, () => Promise<string> | string, string]> = [
    ['alg none', () => `${segment({ alg: 'none', typ: 'JWT' })}.${payload}.`, 'alg_not_allowed'],
    ['alg nOnE', () => `${segment({ alg: 'nOnE' })}.${payload}.`, 'alg_not_allowed'],
    [
      'alg none with a signature',
      () => `${segment({ alg: 'none' })}.${payload}.${fakeSignature}`,
      'alg_not_allowed',
    ],
    [
      'alg hs256 lowercase',
      () => `${segment({ alg: 'hs256' })}.${payload}.${fakeSignature}`,
      'alg_not_allowed',
    ],
    ['no alg', () => `${segment({ typ: 'JWT' })}.${payload}.${fakeSignature}`, 'alg_not_allowed'],
    [
      'HS512 with the right secret',
      () =>
        new SignJWT(base() as JWTPayload)
          .setProtectedHeader({ alg: 'HS512' })
          .sign(encoder.encode(SECRET_A)),
      'alg_not_allowed',
    ],
    [
      'RS256',
      async () => {
        const { privateKey } = await generateKeyPair('RS256');
        return new SignJWT(base() as JWTPayload)
          .setProtectedHeader({ alg: 'RS256' })
          .sign(privateKey);
      },
      'alg_not_allowed',
    ],
    [
      'ES256',
      async () => {
        const { privateKey } = await generateKeyPair('ES256');
        return new SignJWT(base() as JWTPayload)
          .setProtectedHeader({ alg: 'ES256' })
          .sign(privateKey);
      },
      'alg_not_allowed',
    ],
    ['wrong secret', () => hs256(base(), 'not-the-secret'), 'bad_signature'],
    ["another organization's secret", () => hs256(base(), SECRET_B), 'bad_signature'],
    [
      'orgId rewritten to another organization',
      () => hs256({ ...base(), orgId: 'org_bbbbbbbbbbbb' }, SECRET_A),
      'bad_signature',
    ],
    [
      'payload swapped after signing',
      async () => {
        const [header, , signature] = (await hs256(base())).split('.');
        return `${header}.${segment({ ...base(), role: 'ADMIN' })}.${signature}`;
      },
      'bad_signature',
    ],
    [
      'empty signature with HS256',
      () => `${segment({ alg: 'HS256' })}.${payload}.`,
      'bad_signature',
    ],
    [
      'secret as base64url-decoded bytes',
      () =>
        new SignJWT(base() as JWTPayload)
          .setProtectedHeader({ alg: 'HS256' })
          .sign(base64url.decode(SECRET_A)),
      'bad_signature',
    ],
    ['missing email', () => hs256({ ...base(), email: undefined }), 'missing_claim:email'],
    ['missing orgId', () => hs256({ ...base(), orgId: undefined }), 'missing_claim:orgId'],
    ['missing iat', () => hs256({ ...base(), iat: undefined }), 'missing_claim:iat'],
    ['missing exp', () => hs256({ ...base(), exp: undefined }), 'missing_claim:exp'],
    ['email not an email', () => hs256({ ...base(), email: 'ada' }), 'invalid_claim:email'],
    [
      'email not a string',
      () => hs256({ ...base(), email: ['ada@example.com'] }),
      'invalid_claim:email',
    ],
    ['orgId not a string', () => hs256({ ...base(), orgId: 42 }), 'invalid_claim:orgId'],
    ['iat a string', () => hs256({ ...base(), iat: String(T) }), 'invalid_claim:iat'],
    ['exp a string', () => hs256({ ...base(), exp: String(T + 600) }), 'invalid_claim:exp'],
    ['role not a role', () => hs256({ ...base(), role: 'OWNER' }), 'invalid_claim:role'],
    ['role lowercase', () => hs256({ ...base(), role: 'admin' }), 'invalid_claim:role'],
    ['groups not an array', () => hs256({ ...base(), groups: 'eng' }), 'invalid_claim:groups'],
    [
      'groups with a number',
      () => hs256({ ...base(), groups: ['eng', 1] }),
      'invalid_claim:groups',
    ],
    ['firstName not a string', () => hs256({ ...base(), firstName: 1 }), 'invalid_claim:firstName'],
    [
      'jti over 255 characters',
      () => hs256({ ...base(), jti: 'j'.repeat(256) }),
      'invalid_claim:jti',
    ],
    ['jti empty', () => hs256({ ...base(), jti: '' }), 'invalid_claim:jti'],
    ['expired', () => hs256({ ...base(), iat: T - 1200, exp: T - 600 }), 'expired'],
    [
      'expired beyond the tolerance',
      () => hs256({ ...base(), iat: T - 600, exp: T - 30 }),
      'expired',
    ],
    ['nbf in the future', () => hs256({ ...base(), nbf: T + 120 }), 'invalid_claim:nbf'],
    ['nbf a string', () => hs256({ ...base(), nbf: String(T) }), 'invalid_claim:nbf'],
    [
      'a critical header extension',
      () =>
        new SignJWT(base() as JWTPayload)
          .setProtectedHeader({ alg: 'HS256', crit: ['b64'], b64: true })
          .sign(encoder.encode(SECRET_A)),
      'not_supported',
    ],
    [
      // The same 32 bytes in another spelling (stray low bits in the last character).
      'signature re-spelled',
      async () => {
        const [header, body, signature = ''] = (await hs256(base())).split('.');
        const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
        const last = alphabet.indexOf(signature.slice(-1));
        return `${header}.${body}.${signature.slice(0, -1)}${alphabet[last ^ 1]}`;
      },
      'bad_signature',
    ],
    [
      'iat in the future past tolerance',
      () => hs256({ ...base(), iat: T + 31, exp: T + 631 }),
      'iat_in_future',
    ],
    ['lifetime over one hour', () => hs256({ ...base(), exp: T + 3601 }), 'lifetime_too_long'],
    ['exp before iat', () => hs256({ ...base(), iat: T, exp: T - 10 }), 'invalid_claim:exp'],
    ['unknown orgId', () => hs256({ ...base(), orgId: 'org_zzzzzzzzzzzz' }), 'unknown_org'],
    [
      'orgId over 255 characters',
      () => hs256({ ...base(), orgId: 'o'.repeat(256) }),
      'invalid_claim:orgId',
    ],
    ['abc', () => 'abc', 'malformed'],
    ['a.b.c', () => 'a.b.c', 'malformed'],
    ['empty', () => '', 'malformed'],
    ['dots only', () => '..', 'malformed'],
    ['four segments', () => `${segment({ alg: 'HS256' })}.${payload}.x.y`, 'malformed'],
    ['JWE-shaped', () => 'a.b.c.d.e', 'malformed'],
    [
      'non-JSON header',
      () => `${base64url.encode('not json')}.${payload}.${fakeSignature}`,
      'malformed',
    ],
    [
      'non-JSON payload',
      () => `${segment({ alg: 'HS256' })}.${base64url.encode('nope')}.${fakeSignature}`,
      'malformed',
    ],
    [
      'JSON array payload',
      () => `${segment({ alg: 'HS256' })}.${segment([1])}.${fakeSignature}`,
      'malformed',
    ],
    [
      'padding characters',
      () => `${segment({ alg: 'HS256' })}=.${payload}.${fakeSignature}`,
      'malformed',
    ],
    ['spaces', () => `${segment({ alg: 'HS256' })} .${payload}.${fakeSignature}`, 'malformed'],
    ['API key', () => 'bk_key_abcdefghijklmnopqrstuvwxyz012345', 'malformed'],
    ['oversize token', async () => `${await hs256(base())}${'A'.repeat(8192)}`, 'too_long'],
    [
      'oversize but well-formed claims',
      () => hs256({ ...base(), groups: Array.from({ length: 1000 }, (_, i) => `group-${i}`) }),
      'too_long',
    ],
  ];

  it.each(cases)('%s', async (_name, make, reason) => {
    const token = await make();
    expect(await verifySsoToken(token, fakeDeps())).toEqual({ ok: false, reason });
  });

  it('refuses a replayed jti', async () => {
    const deps = fakeDeps();
    const token = await hs256({ ...base(), jti: 'replay-me' });
    expect((await verifySsoToken(token, deps)).ok).toBe(true);
    expect(await verifySsoToken(token, deps)).toEqual({ ok: false, reason: 'jti_replayed' });
  });

  it('does not consume a jti when the signature is wrong', async () => {
    const deps = fakeDeps();
    const token = await hs256({ ...base(), jti: 'victim' }, 'not-the-secret');
    expect((await verifySsoToken(token, deps)).ok).toBe(false);
    expect(deps.consumeJti).not.toHaveBeenCalled();
  });

  it('does not consume a jti when the claims are wrong', async () => {
    const deps = fakeDeps();
    const token = await hs256({ ...base(), jti: 'victim', exp: T + 7200 });
    expect((await verifySsoToken(token, deps)).ok).toBe(false);
    expect(deps.consumeJti).not.toHaveBeenCalled();
  });

  it('does not look up an organization for a token with a refused alg', async () => {
    const deps = fakeDeps();
    await verifySsoToken(`${segment({ alg: 'none' })}.${payload}.`, deps);
    expect(deps.findOrgSecret).not.toHaveBeenCalled();
  });

  it('never throws on arbitrary input', async () => {
    const inputs = [
      '.',
      '...',
      '\u0000',
      'é.é.é',
      `${payload}.${payload}.${payload}`,
      'e30.e30.',
      'e30.e30.e30',
    ];
    for (const input of inputs) {
      const result = await verifySsoToken(input, fakeDeps());
      expect(result.ok).toBe(false);
    }
  });
});
