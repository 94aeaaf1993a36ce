import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';
import { redactUrl } from '../../src/http/request-context';
import { claimsFor, createOrg, requestId, signHs256 } from '../sso/support';

const HOST = 'https://host.example.com';
const EVIL = 'https://evil.example';

type Org = { id: string; slug: string; jwtSecret: string };

describe.each(ENGINES)('hardening on %s', (engine) => {
  let bridge: TestBridge;
  let owner: { key: string };
  let org: Org;
  let hidden: Org;

  beforeAll(async () => {
    bridge = await startBridge(engine);
    owner = await bridge.newUser();
    org = await createOrg(bridge, owner.key, {
      fullEmbedEnabled: true,
      embedAllowedOrigins: [HOST],
    });
    hidden = await createOrg(bridge, owner.key, {
      fullEmbedEnabled: false,
      embedAllowedOrigins: [HOST],
    });
  });
  afterAll(() => bridge.stop());

  const token = (extra: Record<string, unknown> = {}) =>
    signHs256(claimsFor(org.id, extra), org.jwtSecret);

  describe('an embed session never receives jwtSecret', () => {
    it('omits it on GET of the organization, even for an ADMIN session', async () => {
      const jwt = await token({ role: 'ADMIN' });
      const session = (await bridge.request('POST', '/api/sso/jwt', { body: { jwt } })).body.data;
      const res = await bridge.request(
        'GET',
        `/api/public/organizations/${org.id}?include=jwtSecret`,
        {
          key: session.sessionToken,
        },
      );
      expect(res.status).toBe(200);
      expect(res.body.data.id).toBe(org.id);
      expect(res.body.data).not.toHaveProperty('jwtSecret');
      expect(res.text).not.toContain(org.jwtSecret);
    });

    it('omits it on the list, even for an ADMIN session', async () => {
      const jwt = await token({ role: 'ADMIN' });
      const session = (await bridge.request('POST', '/api/sso/jwt', { body: { jwt } })).body.data;
      const res = await bridge.request('GET', '/api/public/organizations?include=jwtSecret', {
        key: session.sessionToken,
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(1);
      expect(res.body.data[0]).not.toHaveProperty('jwtSecret');
      expect(res.text).not.toContain(org.jwtSecret);
    });

    it('still returns it to an ADMIN API key (control)', async () => {
      const res = await bridge.request(
        'GET',
        `/api/public/organizations/${org.id}?include=jwtSecret`,
        {
          key: owner.key,
        },
      );
      expect(res.body.data.jwtSecret).toBe(org.jwtSecret);
    });
  });

  describe('the embed page says nothing about organizations without full embed', () => {
    it('answers full embed off exactly as an unknown slug: 404, frame-ancestors none', async () => {
      const off = await bridge.request('GET', `/embed/orgs/${hidden.slug}`);
      const unknown = await bridge.request('GET', '/embed/orgs/no-such-org-anywhere');
      for (const res of [off, unknown]) {
        expect(res.status).toBe(404);
        expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'$/);
        expect(res.text).not.toContain(HOST);
      }
      expect(off.text).toBe(unknown.text);
      const policy = (res: typeof off) =>
        res.headers.get('content-security-policy')?.replace(/'nonce-[^']+'/, '');
      expect(policy(off)).toBe(policy(unknown));
    });
  });

  describe('a refused exchange leaves the jti unused', () => {
    it('POST from a disallowed Origin is 403; the same token then works from an allowed one', async () => {
      const jwt = await token();
      const refused = await bridge.request('POST', '/api/sso/jwt', {
        body: { jwt },
        headers: { origin: EVIL },
      });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toEqual({
        title: 'Forbidden',
        code: 'origin_not_allowed',
        detail: 'Origin not allowed for this organization',
      });
      const ok = await bridge.request('POST', '/api/sso/jwt', {
        body: { jwt },
        headers: { origin: HOST },
      });
      expect(ok.status).toBe(200);
      const replay = await bridge.request('POST', '/api/sso/jwt', { body: { jwt } });
      expect(replay.status).toBe(401);
    });

    it('GET framed by a disallowed page is 403; the same token then signs in where allowed', async () => {
      const jwt = await token();
      const url = `/api/sso/jwt?jwt=${encodeURIComponent(jwt)}`;
      const refused = await bridge.request('GET', url, { headers: { referer: `${EVIL}/x` } });
      expect(refused.status).toBe(403);
      expect(refused.body.error.title).toBe('Forbidden');
      const ok = await bridge.request('GET', url, { headers: { referer: `${HOST}/x` } });
      expect(ok.status).toBe(302);
      const replay = await bridge.request('GET', url, { headers: { referer: `${HOST}/x` } });
      expect(replay.status).toBe(401);
    });

    it('GET for an organization with full embed off is 403 and keeps the jti', async () => {
      const jwt = await signHs256(claimsFor(hidden.id), hidden.jwtSecret);
      const url = `/api/sso/jwt?jwt=${encodeURIComponent(jwt)}`;
      const refused = await bridge.request('GET', url, { headers: { referer: `${HOST}/x` } });
      expect(refused.status).toBe(403);
      const exchange = await bridge.request('POST', '/api/sso/jwt', { body: { jwt } });
      expect(exchange.status).toBe(200);
    });
  });

  describe('a browser origin that is not allowed gets nothing done, whatever the credential', () => {
    async function newDataSource() {
      const res = await bridge.request('POST', `/api/public/organizations/${org.id}/data-sources`, {
        key: owner.key,
        body: {
          displayName: 'Warehouse',
          dialect: 'POSTGRES',
          host: 'db.example.com',
          username: 'u',
        },
      });
      if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text}`);
      return res.body.data.id as string;
    }

    it('refuses an API key with a disallowed Origin (403) and deletes nothing', async () => {
      const id = await newDataSource();
      const path = `/api/public/organizations/${org.id}/data-sources/${id}`;
      const res = await bridge.request('DELETE', path, {
        key: owner.key,
        headers: { origin: EVIL },
      });
      expect(res.status).toBe(403);
      expect(res.body.error).toEqual({
        title: 'Forbidden',
        code: 'origin_not_allowed',
        detail: 'Origin not allowed for this organization',
      });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect((await bridge.request('GET', path, { key: owner.key })).status).toBe(200);
    });

    it('refuses an API key with an Origin on a path that names no organization (403)', async () => {
      const res = await bridge.request('GET', '/api/public/organizations', {
        key: owner.key,
        headers: { origin: EVIL },
      });
      expect(res.status).toBe(403);
      expect(res.body.error.title).toBe('Forbidden');
    });

    it('carries out an API key request from an allowed Origin (control)', async () => {
      const id = await newDataSource();
      const path = `/api/public/organizations/${org.id}/data-sources/${id}`;
      const res = await bridge.request('DELETE', path, {
        key: owner.key,
        headers: { origin: HOST },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe(HOST);
    });

    it('still answers bad credentials from a disallowed Origin with 401', async () => {
      const res = await bridge.request('GET', `/api/public/organizations/${org.id}`, {
        key: 'bk_key_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
        headers: { origin: EVIL },
      });
      expect(res.status).toBe(401);
      expect(res.body.error.title).toBe('Unauthorized');
    });
  });

  describe('SSO tokens never reach the access log, however the parameter is spelled', () => {
    for (const name of [
      'jwt',
      '%6Awt',
      'jw%74',
      '%6A%77%74',
      'JWT',
      'jwt[]',
      '%256Awt',
      '%25256A%2577t',
      'jwt%00',
      'jwt%20',
      '%20JwT%09',
      'jwt%2500',
      'jWt%0A',
      'jwt+',
      'note',
    ]) {
      it(`redacts ?${name}=`, async () => {
        const jwt = await token();
        const id = requestId();
        await bridge.request('GET', `/api/sso/jwt?${name}=${encodeURIComponent(jwt)}`, {
          headers: { referer: `${HOST}/x`, 'x-request-id': id },
        });
        const lines = bridge.logs.filter((line) => line.includes(id));
        expect(lines.length).toBeGreaterThan(0);
        for (const line of lines) {
          expect(line).not.toContain(jwt.split('.')[2]);
          expect(line).not.toContain(jwt.split('.')[1]);
        }
      });
    }
  });
});

describe('redactUrl', () => {
  it.each([
    ['/api/sso/jwt?jwt=abc.def.ghi', '/api/sso/jwt?jwt=[redacted]'],
    ['/api/sso/jwt?%6Awt=abc', '/api/sso/jwt?%6Awt=[redacted]'],
    ['/api/sso/jwt?jw%74=abc&theme=dark', '/api/sso/jwt?jw%74=[redacted]&theme=dark'],
    ['/x?Token=abc', '/x?Token=[redacted]'],
    ['/x?api%5Fkey=abc', '/x?api%5Fkey=[redacted]'],
    ['/x?jwt%5B%5D=abc', '/x?jwt%5B%5D=[redacted]'],
    ['/x?%E0%A4%A=abc', '/x?%E0%A4%A=abc'],
    ['/x?note=bk_key_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', '/x?note=bk_key_[redacted]'],
    ['/x?note=bk%5Fkey%5FAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', '/x?note=[redacted]'],
    ['/x/bk%5Fkey%5FAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/y', '/x/[redacted]/y'],
    ['/api/sso/jwt?%256Awt=abc&theme=dark', '/api/sso/jwt?%256Awt=[redacted]&theme=dark'],
    ['/api/sso/jwt?%25256Awt=abc', '/api/sso/jwt?%25256Awt=[redacted]'],
    ['/api/sso/jwt?jwt%00=abc', '/api/sso/jwt?jwt%00=[redacted]'],
    ['/api/sso/jwt?jwt%20=abc', '/api/sso/jwt?jwt%20=[redacted]'],
    ['/api/sso/jwt?%09JwT%0D%0A=abc', '/api/sso/jwt?%09JwT%0D%0A=[redacted]'],
    ['/api/sso/jwt?jwt%C2%85=abc', '/api/sso/jwt?jwt%C2%85=[redacted]'],
    ['/api/sso/jwt?jwt%2520%255B%255D=abc', '/api/sso/jwt?jwt%2520%255B%255D=[redacted]'],
    ['/x?note=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln', '/x?note=[redacted]'],
    ['/x?note=eyJhbGciOiJIUzI1NiJ9%2EeyJzdWIiOiJ4In0%2Ec2ln', '/x?note=[redacted]'],
    ['/x/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln/y', '/x/[redacted]/y'],
    ['/x?jwtx=abc&xjwt=def', '/x?jwtx=abc&xjwt=def'],
  ])('%s → %s', (input, expected) => {
    expect(redactUrl(input)).toBe(expected);
  });
});
