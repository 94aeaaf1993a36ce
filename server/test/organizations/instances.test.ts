import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestBridge } from '../../../test/support/bridge';
import {
  claimsFor,
  createOrg,
  createSharedPg,
  embedSignIn,
  kitSignIn,
  type SharedPg,
  signHs256,
  startBridgeOn,
} from '../sso/support';
import { frameAncestorsOf, fullEmbedStatus, preflight } from './support';

const OLD = 'https://old.example.com';
const NEW = 'https://new.example.com';
const UNAUTHORIZED = {
  title: 'Unauthorized',
  detail: 'Missing, invalid, revoked or expired credentials',
  code: 'invalid_credentials',
};

type Org = Awaited<ReturnType<typeof createOrg>>;

/**
 * Every change made through one bridge holds on the very next request to another bridge on
 * the same PostgreSQL: origins (CORS, frame-ancestors, the full-embed sign-in, open embed
 * sessions), full embed, roles, memberships, the secret and the organization itself.
 */
describe('organization and member changes across two bridges on one PostgreSQL', () => {
  let pg: SharedPg;
  let one: TestBridge;
  let two: TestBridge;
  let admin: { key: string };

  beforeAll(async () => {
    pg = await createSharedPg();
    one = await startBridgeOn(pg);
    two = await startBridgeOn(pg);
    admin = await one.newUser();
  });
  afterAll(async () => {
    await one?.stop();
    await two?.stop();
    await pg?.drop();
  });

  const embedOrg = () =>
    createOrg(one, admin.key, { fullEmbedEnabled: true, embedAllowedOrigins: [OLD] });
  const patch = (org: Org, body: unknown) =>
    one.request('PATCH', `/api/public/organizations/${org.id}`, { key: admin.key, body });
  const tokenOf = (org: Org) => signHs256(claimsFor(org.id), org.jwtSecret);

  it('answers CORS on the second from the origins changed on the first', async () => {
    const org = await embedOrg();
    const path = `/api/public/organizations/${org.id}`;
    // The second has answered (and indexed) the old list before the change.
    expect((await preflight(two, path, OLD)).status).toBe(204);
    expect((await preflight(two, '/api/sso/jwt', OLD)).status).toBe(204);
    expect((await preflight(two, '/api/sso/jwt', NEW)).status).toBe(403);
    expect((await patch(org, { embedAllowedOrigins: [NEW] })).status).toBe(200);
    const allowed = await preflight(two, path, NEW);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(NEW);
    expect((await preflight(two, path, OLD)).status).toBe(403);
    expect((await preflight(two, '/api/sso/jwt', NEW)).status).toBe(204);
    expect((await preflight(two, '/api/sso/jwt', OLD)).status).toBe(403);
    const session = await kitSignIn(one, org);
    const fromOld = await two.request('GET', path, {
      key: session.sessionToken,
      headers: { origin: OLD },
    });
    expect(fromOld.status).toBe(403);
    expect(fromOld.body.error).toEqual({
      title: 'Forbidden',
      detail: 'Origin not allowed for this organization',
      code: 'origin_not_allowed',
    });
  });

  it('sends the changed frame-ancestors and runs the full-embed sign-in by them on the second', async () => {
    const org = await embedOrg();
    expect(await frameAncestorsOf(two, org.slug)).toBe(OLD);
    expect(await fullEmbedStatus(two, await tokenOf(org), OLD)).toBe(302);
    await patch(org, { embedAllowedOrigins: [NEW, 'https://*.tenants.example.com'] });
    expect(await frameAncestorsOf(two, org.slug)).toBe(`${NEW} https://*.tenants.example.com`);
    expect(await fullEmbedStatus(two, await tokenOf(org), NEW)).toBe(302);
    expect(await fullEmbedStatus(two, await tokenOf(org), OLD)).toBe(403);
  });

  it('ends on the second an open embed session whose framing origin was removed on the first', async () => {
    const org = await embedOrg();
    const session = await embedSignIn(two, org, OLD);
    const path = `/api/public/organizations/${org.id}`;
    expect((await two.request('GET', path, { key: session.sessionToken })).status).toBe(200);
    await patch(org, { embedAllowedOrigins: [NEW] });
    const after = await two.request('GET', path, { key: session.sessionToken });
    expect(after.status).toBe(401);
    expect(after.body.error).toEqual(UNAUTHORIZED);
  });

  it('turns full embed off everywhere: sign-in, page and open embed sessions', async () => {
    const org = await embedOrg();
    const embed = await embedSignIn(two, org, OLD);
    const kit = await kitSignIn(two, org);
    await patch(org, { fullEmbedEnabled: false });
    expect(await fullEmbedStatus(two, await tokenOf(org), OLD)).toBe(403);
    expect((await two.request('GET', `/embed/orgs/${org.slug}`)).status).toBe(404);
    expect(await frameAncestorsOf(two, org.slug)).toBe("'none'");
    const path = `/api/public/organizations/${org.id}`;
    expect((await two.request('GET', path, { key: embed.sessionToken })).status).toBe(401);
    // A kit session does not depend on full embed.
    expect((await two.request('GET', path, { key: kit.sessionToken })).status).toBe(200);
    await patch(org, { fullEmbedEnabled: true });
    expect(await fullEmbedStatus(two, await tokenOf(org), OLD)).toBe(302);
  });

  it('serves the embed page at a slug changed on the first, and no longer at the old one', async () => {
    const org = await embedOrg();
    const slug = `moved-${org.id.slice(-10).toLowerCase()}`;
    await patch(org, { slug });
    expect(await frameAncestorsOf(two, slug)).toBe(OLD);
    expect((await two.request('GET', `/embed/orgs/${org.slug}`)).status).toBe(404);
  });

  it('applies on the second a demotion and a removal made on the first', async () => {
    const org = await embedOrg();
    const demoted = await kitSignIn(two, org, { role: 'ADMIN' });
    const removed = await kitSignIn(two, org, { role: 'ADMIN' });
    const members = `/api/public/organizations/${org.id}/members`;
    const demote = await one.request('PATCH', `${members}/${demoted.member.id}`, {
      key: admin.key,
      body: { role: 'MEMBER' },
    });
    expect(demote.status).toBe(200);
    const info = await two.request('GET', '/api/sso/session', { key: demoted.sessionToken });
    expect(info.body.data.member.role).toBe('MEMBER');
    const add = await two.request('POST', members, {
      key: demoted.sessionToken,
      body: { email: 'not-by-a-member@example.com', role: 'MEMBER' },
    });
    expect(add.status).toBe(403);
    expect(
      (await one.request('DELETE', `${members}/${removed.member.id}`, { key: admin.key })).status,
    ).toBe(200);
    const gone = await two.request('GET', `/api/public/organizations/${org.id}`, {
      key: removed.sessionToken,
    });
    expect(gone.status).toBe(401);
    expect(gone.body.error).toEqual(UNAUTHORIZED);
  });

  it('verifies on the second the secret rotated on the first, and the previous one', async () => {
    const org = await embedOrg();
    const rotated = await one.request('POST', `/api/public/organizations/${org.id}/jwt-secret`, {
      key: admin.key,
    });
    expect(rotated.status).toBe(200);
    const next = { ...org, jwtSecret: rotated.body.data.jwtSecret as string };
    for (const secretOf of [org, next]) {
      const session = await kitSignIn(two, secretOf);
      expect(session.organization.previousJwtSecretExpiresAt).toBe(
        rotated.body.data.previousJwtSecretExpiresAt,
      );
    }
  });

  it('ends on the second everything of an organization deleted on the first', async () => {
    // An origin only this organization allows, so the origin index must forget it.
    const own = `https://deleted-${Date.now()}.example.com`;
    const org = await createOrg(one, admin.key, {
      fullEmbedEnabled: true,
      embedAllowedOrigins: [own],
    });
    const embed = await embedSignIn(two, org, own);
    const kit = await kitSignIn(two, org);
    expect((await preflight(two, '/api/sso/jwt', own)).status).toBe(204);
    const deleted = await one.request('DELETE', `/api/public/organizations/${org.id}`, {
      key: admin.key,
    });
    expect(deleted.status).toBe(200);
    for (const token of [embed.sessionToken, kit.sessionToken]) {
      const res = await two.request('GET', `/api/public/organizations/${org.id}`, { key: token });
      expect(res.status).toBe(401);
    }
    const read = await two.request('GET', `/api/public/organizations/${org.id}`, {
      key: admin.key,
    });
    expect(read.status).toBe(404);
    expect(await fullEmbedStatus(two, await tokenOf(org), own)).toBe(401);
    expect((await preflight(two, '/api/sso/jwt', own)).status).toBe(403);
    expect(await frameAncestorsOf(two, org.slug)).toBe("'none'");
  });
});
