import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type SsoTokenDeps, verifySsoToken } from '../../../server/src/sso/token';
import { createSsoToken } from '../src';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const T = Math.floor(NOW.getTime() / 1000);
const SECRET = 'q0Jm3p5Zb9xJcT6yVx2uQ1nE4rK8sW7dH0fL5gA3bCk';
const ORG = 'org_0123456789ab';

function deps(): SsoTokenDeps {
  const used = new Set<string>();
  return {
    findOrgSecret: async (orgId) => (orgId === ORG ? SECRET : null),
    consumeJti: async (orgId, jti) => {
      if (used.has(`${orgId}:${jti}`)) return false;
      used.add(`${orgId}:${jti}`);
      return true;
    },
    now: () => new Date(NOW),
  };
}

describe('createSsoToken', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('signs a token the bridge verifies, with every user field', async () => {
    const jwt = await createSsoToken({
      secret: SECRET,
      orgId: ORG,
      user: {
        email: 'ada@example.com',
        firstName: 'Ada',
        lastName: 'Lovelace',
        role: 'ADMIN',
        groups: ['eng'],
      },
      jti: 'fixed-jti',
    });
    expect(await verifySsoToken(jwt, deps())).toEqual({
      ok: true,
      claims: {
        email: 'ada@example.com',
        orgId: ORG,
        iat: T,
        exp: T + 600,
        firstName: 'Ada',
        lastName: 'Lovelace',
        role: 'ADMIN',
        groups: ['eng'],
        jti: 'fixed-jti',
      },
    });
  });

  it('uses HS256, iat now, ten minutes and a random UUID jti by default', async () => {
    const jwt = await createSsoToken({
      secret: SECRET,
      orgId: ORG,
      user: { email: 'ada@example.com' },
    });
    expect(decodeProtectedHeader(jwt)).toEqual({ alg: 'HS256', typ: 'JWT' });
    const claims = decodeJwt(jwt);
    expect(claims).toMatchObject({ email: 'ada@example.com', orgId: ORG, iat: T, exp: T + 600 });
    expect(claims.jti).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(Object.keys(claims).sort()).toEqual(['email', 'exp', 'iat', 'jti', 'orgId']);
  });

  it('gives each token its own jti, so the bridge accepts each once', async () => {
    const d = deps();
    const first = await createSsoToken({
      secret: SECRET,
      orgId: ORG,
      user: { email: 'a@example.com' },
    });
    const second = await createSsoToken({
      secret: SECRET,
      orgId: ORG,
      user: { email: 'a@example.com' },
    });
    expect((await verifySsoToken(first, d)).ok).toBe(true);
    expect((await verifySsoToken(second, d)).ok).toBe(true);
    expect(await verifySsoToken(first, d)).toEqual({ ok: false, reason: 'jti_replayed' });
  });

  it('is refused by the bridge when signed with another secret', async () => {
    const jwt = await createSsoToken({
      secret: 'wrong',
      orgId: ORG,
      user: { email: 'a@example.com' },
    });
    expect(await verifySsoToken(jwt, deps())).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it.each([
    ['30s', 30],
    ['10m', 600],
    ['10 minutes', 600],
    ['1h', 3600],
    ['60m', 3600],
    ['3600s', 3600],
    [1, 1],
    [3600, 3600],
  ])('accepts expiresIn %j', async (expiresIn, seconds) => {
    const jwt = await createSsoToken({
      secret: SECRET,
      orgId: ORG,
      user: { email: 'a@example.com' },
      expiresIn,
    });
    expect(decodeJwt(jwt).exp).toBe(T + seconds);
    expect((await verifySsoToken(jwt, deps())).ok).toBe(true);
  });

  it.each([['61m'], ['2h'], ['3601s'], [3601], [0], [-5], [1.5], ['0s']])(
    'refuses expiresIn %j as over one hour or not positive',
    async (expiresIn) => {
      await expect(
        createSsoToken({ secret: SECRET, orgId: ORG, user: { email: 'a@example.com' }, expiresIn }),
      ).rejects.toThrow(RangeError);
    },
  );

  it.each([['1d'], ['abc'], [''], ['-10m'], ['10m ago']])(
    'refuses expiresIn %j as unreadable',
    async (expiresIn) => {
      await expect(
        createSsoToken({ secret: SECRET, orgId: ORG, user: { email: 'a@example.com' }, expiresIn }),
      ).rejects.toThrow(TypeError);
    },
  );

  it('refuses a missing secret, orgId or email', async () => {
    const user = { email: 'a@example.com' };
    await expect(createSsoToken({ secret: '', orgId: ORG, user })).rejects.toThrow(/secret/);
    await expect(createSsoToken({ secret: SECRET, orgId: '', user })).rejects.toThrow(/orgId/);
    await expect(
      createSsoToken({ secret: SECRET, orgId: ORG, user: { email: '' } }),
    ).rejects.toThrow(/user\.email/);
  });
});
