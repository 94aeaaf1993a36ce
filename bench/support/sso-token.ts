import { createHmac, randomUUID } from 'node:crypto';

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

/** What `createSsoToken` makes, signed synchronously so each request can get its own jti. */
export function signFreshSsoToken(secret: string, orgId: string, email: string): string {
  const iat = Math.floor(Date.now() / 1000);
  const claims = { email, orgId, iat, exp: iat + 600, jti: randomUUID() };
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const signature = createHmac('sha256', secret).update(`${HEADER}.${payload}`).digest('base64url');
  return `${HEADER}.${payload}.${signature}`;
}
