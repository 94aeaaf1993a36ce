import { randomUUID } from 'node:crypto';
import { dataOf, SsoSession } from '@bridgekit/contract';
import { createSsoToken, exchangeSsoToken } from '@bridgekit/node';
import { SignJWT } from 'jose';
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';
import { createOrg, SSO_DETAIL } from './support';

const SessionResponse = dataOf(SsoSession);

describe.each(ENGINES)('SSO token interop on %s', (engine) => {
  let bridge: TestBridge;
  let org: { id: string; jwtSecret: string };

  beforeAll(async () => {
    bridge = await startBridge(engine);
    const admin = await bridge.newUser();
    org = await createOrg(bridge, admin.key);
  });
  afterAll(() => bridge.stop());

  it('accepts a token from jsonwebtoken (HS256, expiresIn 10m)', async () => {
    const token = jwt.sign({ email: 'jsonwebtoken@example.com', orgId: org.id }, org.jwtSecret, {
      algorithm: 'HS256',
      expiresIn: '10m',
    });
    const res = await bridge.request('POST', '/api/sso/jwt', { body: { jwt: token } });
    expect(res.status).toBe(200);
    const session = SessionResponse.parse(res.body).data;
    expect(session.organization.id).toBe(org.id);
    expect(session.member.user.email).toBe('jsonwebtoken@example.com');
    expect(session.member.role).toBe('MEMBER');
  });

  it('accepts a token from jsonwebtoken with a jwtid', async () => {
    const token = jwt.sign({ email: 'jwtid@example.com', orgId: org.id }, org.jwtSecret, {
      algorithm: 'HS256',
      expiresIn: '10m',
      jwtid: randomUUID(),
    });
    const res = await bridge.request('POST', '/api/sso/jwt', { body: { jwt: token } });
    expect(res.status).toBe(200);
    expect(SessionResponse.parse(res.body).data.member.user.email).toBe('jwtid@example.com');
  });

  it("accepts a token from jose's SignJWT with the secret as UTF-8", async () => {
    const token = await new SignJWT({ email: 'jose@example.com', orgId: org.id })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(org.jwtSecret));
    const res = await bridge.request('POST', '/api/sso/jwt', { body: { jwt: token } });
    expect(res.status).toBe(200);
    const session = SessionResponse.parse(res.body).data;
    expect(session.member.user.email).toBe('jose@example.com');
    expect(Date.parse(session.expiresAt) - Date.now()).toBeGreaterThan(14 * 60_000);
    expect(Date.parse(session.expiresAt) - Date.now()).toBeLessThanOrEqual(15 * 60_000);
  });

  it('accepts a token from the node SDK and exchanges it with the SDK', async () => {
    const token = await createSsoToken({
      secret: org.jwtSecret,
      orgId: org.id,
      user: { email: 'sdk@example.com', firstName: 'Sdk' },
    });
    const session = await exchangeSsoToken({ baseUrl: bridge.url, jwt: token });
    expect(session.member.user).toMatchObject({ email: 'sdk@example.com', firstName: 'Sdk' });
  });

  it('never returns the jwtSecret in the session', async () => {
    const token = await createSsoToken({
      secret: org.jwtSecret,
      orgId: org.id,
      user: { email: 'nosecret@example.com' },
    });
    const res = await bridge.request('POST', '/api/sso/jwt', { body: { jwt: token } });
    expect(res.status).toBe(200);
    expect(res.body.data.organization).not.toHaveProperty('jwtSecret');
    expect(res.text).not.toContain(org.jwtSecret);
  });

  it('refuses a token signed with the base64url-decoded secret bytes', async () => {
    const token = jwt.sign(
      { email: 'decoded@example.com', orgId: org.id },
      Buffer.from(org.jwtSecret, 'base64url'),
      { algorithm: 'HS256', expiresIn: '10m' },
    );
    const res = await bridge.request('POST', '/api/sso/jwt', { body: { jwt: token } });
    expect(res.status).toBe(401);
    expect(res.body.error).toEqual({
      title: 'Unauthorized',
      code: 'sso_token_invalid',
      detail: SSO_DETAIL,
    });
  });
});
