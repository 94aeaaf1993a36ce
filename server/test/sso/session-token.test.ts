import { base64url, decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { createSessionTokens, type SessionGrant } from '../../src/sso/session-token';
import { verifySsoToken } from '../../src/sso/token';

const KEY = new TextEncoder().encode('bridge-session-secret-0123456789-abcdef');
const OTHER_KEY = new TextEncoder().encode('another-session-secret-0123456789-abcde');
const START = new Date('2026-03-01T12:00:00.000Z');
const CLAIMS: SessionGrant = {
  memberId: 'mem_0123456789ab',
  userId: 'usr_0123456789ab',
  orgId: 'org_0123456789ab',
  role: 'ADMIN',
};

function clock(start = START) {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    advance: (seconds: number) => {
      current += seconds * 1000;
    },
  };
}

describe('createSessionTokens', () => {
  it('issues a token that verifies to the same claims', async () => {
    const sessions = createSessionTokens({ key: KEY, now: clock().now });
    const { token, expiresAt } = await sessions.issue(CLAIMS);
    expect(expiresAt).toEqual(new Date(START.getTime() + 900_000));
    expect(await sessions.verify(token)).toMatchObject(CLAIMS);
  });

  it('is a JWT with its own typ, issuer, audience and a random jti', async () => {
    const sessions = createSessionTokens({ key: KEY, now: clock().now });
    const first = await sessions.issue(CLAIMS);
    const second = await sessions.issue(CLAIMS);
    expect(decodeProtectedHeader(first.token)).toEqual({ alg: 'HS256', typ: 'bk-session+jwt' });
    const payload = decodeJwt(first.token);
    expect(payload).toMatchObject({ iss: 'bridgekit', aud: 'bridgekit-session' });
    expect(payload.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(decodeJwt(second.token).jti).not.toBe(payload.jti);
  });

  it('is a standard HS256 JWT that jose verifies with the same key and checks', async () => {
    const sessions = createSessionTokens({ key: KEY, now: clock().now });
    const { token } = await sessions.issue(CLAIMS);
    const { payload } = await jwtVerify(token, KEY, {
      algorithms: ['HS256'],
      typ: 'bk-session+jwt',
      issuer: 'bridgekit',
      audience: 'bridgekit-session',
      currentDate: START,
    });
    expect(payload).toMatchObject({ sub: CLAIMS.userId, org: CLAIMS.orgId, mem: CLAIMS.memberId });
  });

  it('refuses a validly signed token whose header is not exactly the one it writes', async () => {
    const t = Math.floor(START.getTime() / 1000);
    const claims = {
      iss: 'bridgekit',
      aud: 'bridgekit-session',
      sub: CLAIMS.userId,
      org: CLAIMS.orgId,
      mem: CLAIMS.memberId,
      role: 'ADMIN',
      iat: t,
      exp: t + 600,
      jti: 'j',
      sid: 'session-0001',
      knd: 'kit',
      sat: t,
      aex: t + 43_200,
    };
    const sessions = createSessionTokens({ key: KEY, now: clock().now });
    for (const header of [
      { alg: 'HS256', typ: 'bk-session+jwt', kid: 'x' },
      { typ: 'bk-session+jwt', alg: 'HS256' },
      { alg: 'HS256', typ: 'JWT' },
    ]) {
      const token = await new SignJWT(claims).setProtectedHeader(header).sign(KEY);
      expect(await sessions.verify(token)).toBeNull();
    }
    const ok = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'bk-session+jwt' })
      .sign(KEY);
    expect(await sessions.verify(ok)).toMatchObject(CLAIMS);
  });

  it('refuses a token issued in the future past the skew', async () => {
    const time = clock();
    const sessions = createSessionTokens({ key: KEY, now: time.now });
    const { token } = await sessions.issue(CLAIMS);
    time.advance(-6);
    expect(await sessions.verify(token)).toBeNull();
    time.advance(2);
    expect(await sessions.verify(token)).toMatchObject(CLAIMS);
  });

  it('is never confusable with an API key', async () => {
    const sessions = createSessionTokens({ key: KEY, now: clock().now });
    const { token } = await sessions.issue(CLAIMS);
    expect(token.startsWith('bk_key_')).toBe(false);
    expect(token.split('.')).toHaveLength(3);
    expect(await sessions.verify('bk_key_abcdefghijklmnopqrstuvwxyz012345')).toBeNull();
  });

  it('honours ttlSeconds', async () => {
    const sessions = createSessionTokens({ key: KEY, ttlSeconds: 60, now: clock().now });
    const { expiresAt } = await sessions.issue(CLAIMS);
    expect(expiresAt).toEqual(new Date(START.getTime() + 60_000));
  });

  it('accepts a token until its expiry, within a few seconds of skew', async () => {
    const time = clock();
    const sessions = createSessionTokens({ key: KEY, now: time.now });
    const { token } = await sessions.issue(CLAIMS);
    time.advance(899);
    expect(await sessions.verify(token)).toMatchObject(CLAIMS);
    time.advance(5);
    expect(await sessions.verify(token)).toMatchObject(CLAIMS);
  });

  it('refuses an expired token', async () => {
    const time = clock();
    const sessions = createSessionTokens({ key: KEY, now: time.now });
    const { token } = await sessions.issue(CLAIMS);
    time.advance(900 + 6);
    expect(await sessions.verify(token)).toBeNull();
  });

  it('writes its format version, 2, as claim v', async () => {
    const sessions = createSessionTokens({ key: KEY, now: clock().now });
    expect(decodeJwt((await sessions.issue(CLAIMS)).token).v).toBe(2);
  });

  describe('tokens of another format', () => {
    const seconds = Math.floor(START.getTime() / 1000);
    // The previous release's payload, claim for claim: no `v`.
    const formatOne = {
      org: CLAIMS.orgId,
      mem: CLAIMS.memberId,
      role: 'ADMIN',
      sid: 'c2Vzc2lvbi1pZC0wMTIzNDU2',
      knd: 'kit',
      sat: seconds,
      aex: seconds + 12 * 3600,
      iss: 'bridgekit',
      aud: 'bridgekit-session',
      sub: CLAIMS.userId,
      exp: seconds + 900,
      jti: '6f1d1f0e-7a4c-4b7e-9a53-2f7e0b7d9c11',
      iat: seconds,
    };
    const sign = (payload: Record<string, unknown>) =>
      new SignJWT(payload).setProtectedHeader({ alg: 'HS256', typ: 'bk-session+jwt' }).sign(KEY);

    it("accepts the previous release's tokens (format 1, no v), so a rolling upgrade keeps sessions", async () => {
      const sessions = createSessionTokens({ key: KEY, now: clock().now });
      expect(await sessions.verify(await sign(formatOne))).toMatchObject({
        orgId: CLAIMS.orgId,
        memberId: CLAIMS.memberId,
        sessionId: formatOne.sid,
        kind: 'kit',
      });
    });

    it('refuses a format it does not know (a later release rolled back)', async () => {
      const sessions = createSessionTokens({ key: KEY, now: clock().now });
      expect(await sessions.verify(await sign({ ...formatOne, v: 3 }))).toBeNull();
      expect(await sessions.verify(await sign({ ...formatOne, v: '2' }))).toBeNull();
    });
  });

  it('refuses a tampered payload', async () => {
    const sessions = createSessionTokens({ key: KEY, now: clock().now });
    const [header, payload, signature] = (
      await sessions.issue({ ...CLAIMS, role: 'MEMBER' })
    ).token.split('.');
    const claims = JSON.parse(new TextDecoder().decode(base64url.decode(payload!)));
    const forged = base64url.encode(JSON.stringify({ ...claims, role: 'ADMIN' }));
    expect(await sessions.verify(`${header}.${forged}.${signature}`)).toBeNull();
  });

  it('refuses a tampered signature', async () => {
    const sessions = createSessionTokens({ key: KEY, now: clock().now });
    const { token } = await sessions.issue(CLAIMS);
    const at = token.lastIndexOf('.') + 5;
    const flipped = `${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`;
    expect(await sessions.verify(flipped)).toBeNull();
  });

  it('refuses a token signed with another key', async () => {
    const other = createSessionTokens({ key: OTHER_KEY, now: clock().now });
    const sessions = createSessionTokens({ key: KEY, now: clock().now });
    const { token } = await other.issue(CLAIMS);
    expect(await sessions.verify(token)).toBeNull();
  });

  it('refuses an SSO token signed with an organization secret', async () => {
    const orgSecret = 'q0Jm3p5Zb9xJcT6yVx2uQ1nE4rK8sW7dH0fL5gA3bCk';
    const t = Math.floor(START.getTime() / 1000);
    const sso = await new SignJWT({
      email: 'ada@example.com',
      orgId: CLAIMS.orgId,
      iat: t,
      exp: t + 600,
    })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode(orgSecret));
    const sessions = createSessionTokens({ key: KEY, now: clock().now });
    expect(await sessions.verify(sso)).toBeNull();
  });

  it('refuses an SSO-shaped token even under the same key', async () => {
    // typ, issuer and audience separate the two kinds, not only the key.
    const t = Math.floor(START.getTime() / 1000);
    const sso = await new SignJWT({
      email: 'ada@example.com',
      sub: CLAIMS.userId,
      org: CLAIMS.orgId,
      mem: CLAIMS.memberId,
      role: 'ADMIN',
      iat: t,
      exp: t + 600,
      jti: 'x',
    })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(KEY);
    const sessions = createSessionTokens({ key: KEY, now: clock().now });
    expect(await sessions.verify(sso)).toBeNull();
  });

  it('does not let a session token pass as an SSO token', async () => {
    const sessions = createSessionTokens({ key: KEY, now: clock().now });
    const { token } = await sessions.issue(CLAIMS);
    const result = await verifySsoToken(token, {
      findOrgSecret: async () => new TextDecoder().decode(KEY),
      consumeJti: async () => true,
      now: () => START,
    });
    expect(result.ok).toBe(false);
  });

  it('refuses malformed input', async () => {
    const sessions = createSessionTokens({ key: KEY, now: clock().now });
    for (const input of ['', 'abc', 'a.b.c', '..', 'x'.repeat(5000)]) {
      expect(await sessions.verify(input)).toBeNull();
    }
  });

  it('refuses a short key and a bad ttl at creation', () => {
    expect(() => createSessionTokens({ key: new Uint8Array(16) })).toThrow(/at least 32 bytes/);
    expect(() => createSessionTokens({ key: KEY, ttlSeconds: 0 })).toThrow(/positive integer/);
    expect(() => createSessionTokens({ key: KEY, ttlSeconds: 1.5 })).toThrow(/positive integer/);
  });
});
