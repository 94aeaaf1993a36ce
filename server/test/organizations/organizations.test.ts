import { ErrorBody, Organization, pageOf } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';

const ORG_FIELDS = [
  'createdAt',
  'customAiContext',
  'embedAllowedOrigins',
  'fullEmbedEnabled',
  'id',
  'name',
  'onboardingStatus',
  'previousJwtSecretExpiresAt',
  'slug',
  'updatedAt',
];
const JWT_SECRET = /^[A-Za-z0-9_-]{43}$/;

describe.each(ENGINES)('organizations on %s', (engine) => {
  let bridge: TestBridge;
  let admin: { key: string; userId: string; email: string };
  let memberUser: { key: string; userId: string; email: string };
  let stranger: { key: string; userId: string; email: string };
  /** Created by admin; memberUser is a MEMBER of it. */
  let sharedOrg: Organization & { jwtSecret: string };

  beforeAll(async () => {
    bridge = await startBridge(engine);
    admin = await bridge.newUser();
    stranger = await bridge.newUser();
    const created = await bridge.request('POST', '/api/public/organizations?include=jwtSecret', {
      key: admin.key,
      body: { name: 'Shared Org' },
    });
    sharedOrg = created.body.data;
    const email = `member-${engine}@example.com`;
    await bridge.request('POST', `/api/public/organizations/${sharedOrg.id}/members`, {
      key: admin.key,
      body: { email, role: 'MEMBER' },
    });
    memberUser = await bridge.newUser(email);
  });
  afterAll(() => bridge.stop());

  describe('create', () => {
    it('creates an organization with every field of the contract', async () => {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: { name: 'Acme Analytics', customAiContext: 'Sales data', fullEmbedEnabled: true },
      });
      expect(res.status).toBe(201);
      const org = Organization.parse(res.body.data);
      expect(org).toMatchObject({
        name: 'Acme Analytics',
        slug: 'acme-analytics',
        customAiContext: 'Sales data',
        onboardingStatus: 'STARTED',
        fullEmbedEnabled: true,
        embedAllowedOrigins: [],
      });
      expect(org.id).toMatch(/^org_/);
      expect(org.createdAt).toBe(org.updatedAt);
      expect(res.body.data).not.toHaveProperty('jwtSecret');
    });

    it('returns exactly the contract fields and nothing else', async () => {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: { name: 'Exact Fields' },
      });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body.data).sort()).toEqual(ORG_FIELDS);
      expect(Object.keys(res.body).sort()).toEqual(['data']);
    });

    it('fills optional fields with null, false and [] when omitted', async () => {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: { name: 'Bare Minimum' },
      });
      expect(res.status).toBe(201);
      const org = Organization.parse(res.body.data);
      expect(org.customAiContext).toBeNull();
      expect(org.fullEmbedEnabled).toBe(false);
      expect(org.embedAllowedOrigins).toEqual([]);
      expect(org.onboardingStatus).toBe('STARTED');
    });

    it('stores the name trimmed', async () => {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: { name: '  Padded Name  ' },
      });
      expect(res.status).toBe(201);
      expect(Organization.parse(res.body.data).name).toBe('Padded Name');
    });

    it('sets onboardingStatus COMPLETED when skipOnboarding is true', async () => {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: { name: 'Skips Onboarding', skipOnboarding: true },
      });
      expect(res.status).toBe(201);
      expect(Organization.parse(res.body.data).onboardingStatus).toBe('COMPLETED');
    });

    it('keeps onboardingStatus STARTED when skipOnboarding is false', async () => {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: { name: 'Does Onboarding', skipOnboarding: false },
      });
      expect(res.status).toBe(201);
      expect(Organization.parse(res.body.data).onboardingStatus).toBe('STARTED');
    });

    it('makes the creator an ADMIN member of the new organization', async () => {
      const created = await bridge.request('POST', '/api/public/organizations', {
        key: stranger.key,
        body: { name: 'Stranger Co' },
      });
      const res = await bridge.request(
        'GET',
        `/api/public/organizations/${created.body.data.id}/members`,
        { key: stranger.key },
      );
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(1);
      expect(res.body.data[0]).toMatchObject({ userId: stranger.userId, role: 'ADMIN' });
    });
  });

  describe('include=jwtSecret', () => {
    it('returns the jwtSecret on create when asked', async () => {
      const res = await bridge.request('POST', '/api/public/organizations?include=jwtSecret', {
        key: admin.key,
        body: { name: 'With Secret' },
      });
      expect(res.status).toBe(201);
      expect(Organization.parse(res.body.data).jwtSecret).toMatch(JWT_SECRET);
    });

    it('makes the jwtSecret 32 random bytes in base64url', async () => {
      const res = await bridge.request('POST', '/api/public/organizations?include=jwtSecret', {
        key: admin.key,
        body: { name: 'Secret Bytes' },
      });
      const secret: string = res.body.data.jwtSecret;
      expect(secret).toHaveLength(43);
      expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
      expect(Buffer.from(secret, 'base64url').toString('base64url')).toBe(secret);
    });

    it('gives every organization its own jwtSecret', async () => {
      const secrets = new Set<string>();
      for (const name of ['Secret One', 'Secret Two', 'Secret Three']) {
        const res = await bridge.request('POST', '/api/public/organizations?include=jwtSecret', {
          key: admin.key,
          body: { name },
        });
        secrets.add(res.body.data.jwtSecret);
      }
      expect(secrets.size).toBe(3);
      expect(secrets.has(sharedOrg.jwtSecret)).toBe(false);
    });

    it('returns the same jwtSecret on get for an ADMIN', async () => {
      const res = await bridge.request(
        'GET',
        `/api/public/organizations/${sharedOrg.id}?include=jwtSecret`,
        { key: admin.key },
      );
      expect(res.status).toBe(200);
      expect(Organization.parse(res.body.data).jwtSecret).toBe(sharedOrg.jwtSecret);
    });

    it('omits the jwtSecret on get for a MEMBER, without an error', async () => {
      const res = await bridge.request(
        'GET',
        `/api/public/organizations/${sharedOrg.id}?include=jwtSecret`,
        { key: memberUser.key },
      );
      expect(res.status).toBe(200);
      expect(Organization.parse(res.body.data).id).toBe(sharedOrg.id);
      expect(res.body.data).not.toHaveProperty('jwtSecret');
    });

    it('omits the jwtSecret on get without include, even for an ADMIN', async () => {
      const res = await bridge.request('GET', `/api/public/organizations/${sharedOrg.id}`, {
        key: admin.key,
      });
      expect(res.status).toBe(200);
      expect(res.body.data).not.toHaveProperty('jwtSecret');
    });

    it('lists the jwtSecret only on organizations where the caller is ADMIN', async () => {
      const own = await bridge.request('POST', '/api/public/organizations', {
        key: memberUser.key,
        body: { name: 'Member Owns This' },
      });
      const res = await bridge.request('GET', '/api/public/organizations?include=jwtSecret', {
        key: memberUser.key,
      });
      expect(res.status).toBe(200);
      const page = pageOf(Organization).parse(res.body);
      const asMember = page.data.find((o) => o.id === sharedOrg.id);
      const asAdmin = page.data.find((o) => o.id === own.body.data.id);
      expect(asMember).toBeDefined();
      expect(asMember).not.toHaveProperty('jwtSecret');
      expect(asAdmin?.jwtSecret).toMatch(JWT_SECRET);
    });

    it('lists the same jwtSecret that create returned', async () => {
      const res = await bridge.request('GET', '/api/public/organizations?include=jwtSecret', {
        key: admin.key,
      });
      const page = pageOf(Organization).parse(res.body);
      expect(page.data.find((o) => o.id === sharedOrg.id)?.jwtSecret).toBe(sharedOrg.jwtSecret);
    });

    it('lists no jwtSecret without include', async () => {
      const res = await bridge.request('GET', '/api/public/organizations', { key: admin.key });
      expect(res.status).toBe(200);
      for (const org of res.body.data) expect(org).not.toHaveProperty('jwtSecret');
    });

    it('rejects include=foo on create with fieldErrors.include', async () => {
      const res = await bridge.request('POST', '/api/public/organizations?include=foo', {
        key: admin.key,
        body: { name: 'Never Created' },
      });
      expect(res.status).toBe(400);
      expect(ErrorBody.parse(res.body).error.title).toBe('ValidationError');
      expect(res.body.error.fieldErrors).toHaveProperty('include');
      expect(res.body.error.fieldCodes).toEqual({ include: 'invalid_value' });
    });

    it('rejects include=foo on list with fieldErrors.include', async () => {
      const res = await bridge.request('GET', '/api/public/organizations?include=foo', {
        key: admin.key,
      });
      expect(res.status).toBe(400);
      expect(ErrorBody.parse(res.body).error.title).toBe('ValidationError');
      expect(res.body.error.fieldErrors).toHaveProperty('include');
      expect(res.body.error.fieldCodes).toEqual({ include: 'invalid_value' });
    });

    it('rejects include=foo on get with fieldErrors.include', async () => {
      const res = await bridge.request(
        'GET',
        `/api/public/organizations/${sharedOrg.id}?include=foo`,
        {
          key: admin.key,
        },
      );
      expect(res.status).toBe(400);
      expect(ErrorBody.parse(res.body).error.title).toBe('ValidationError');
      expect(res.body.error.fieldErrors).toHaveProperty('include');
      expect(res.body.error.fieldCodes).toEqual({ include: 'invalid_value' });
    });
  });

  describe('slugs', () => {
    it('generates the slug from the name, accents stripped', async () => {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: { name: 'Crème Brûlée & Café, Inc.' },
      });
      expect(res.status).toBe(201);
      expect(res.body.data.slug).toBe('creme-brulee-cafe-inc');
    });

    it('makes a generated slug unique with a short suffix when taken', async () => {
      const first = await bridge.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: { name: 'Twin Peaks' },
      });
      const second = await bridge.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: { name: 'Twin Peaks' },
      });
      expect(first.body.data.slug).toBe('twin-peaks');
      expect(second.status).toBe(201);
      expect(second.body.data.slug).toMatch(/^twin-peaks-[a-z0-9]{4}$/);
    });

    it('makes a generated slug unique even when the slug was taken by another user', async () => {
      await bridge.request('POST', '/api/public/organizations', {
        key: stranger.key,
        body: { name: 'Common Name' },
      });
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: { name: 'Common Name' },
      });
      expect(res.status).toBe(201);
      expect(res.body.data.slug).toMatch(/^common-name-[a-z0-9]{4}$/);
    });

    it('gives concurrent creates with one name distinct slugs', async () => {
      const results = await Promise.all(
        Array.from({ length: 6 }, () =>
          bridge.request('POST', '/api/public/organizations', {
            key: admin.key,
            body: { name: 'Race Condition' },
          }),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(Array(6).fill(201));
      expect(new Set(results.map((r) => r.body.data.slug)).size).toBe(6);
    });

    it('lets exactly one of concurrent creates take an explicit slug', async () => {
      const results = await Promise.all(
        Array.from({ length: 5 }, () =>
          bridge.request('POST', '/api/public/organizations', {
            key: admin.key,
            body: { name: 'Slug Race', slug: 'contested-slug' },
          }),
        ),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    });

    it('uses an explicit slug as given', async () => {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: { name: 'Whatever', slug: 'my-own-slug-2' },
      });
      expect(res.status).toBe(201);
      expect(res.body.data.slug).toBe('my-own-slug-2');
    });

    it('accepts an explicit slug of 63 characters', async () => {
      const slug = 'a'.repeat(63);
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: { name: 'Long Slug', slug },
      });
      expect(res.status).toBe(201);
      expect(res.body.data.slug).toBe(slug);
    });

    it('answers 409 Conflict with fieldErrors.slug for a taken explicit slug', async () => {
      await bridge.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: { name: 'Taken', slug: 'taken-slug' },
      });
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: stranger.key,
        body: { name: 'Taken Again', slug: 'taken-slug' },
      });
      expect(res.status).toBe(409);
      expect(ErrorBody.parse(res.body).error.title).toBe('Conflict');
      expect(res.body.error.code).toBe('slug_taken');
      expect(res.body.error.fieldCodes).toEqual({ slug: 'slug_taken' });
    });

    it('creates nothing when the explicit slug is taken', async () => {
      await bridge.request('POST', '/api/public/organizations', {
        key: stranger.key,
        body: { name: 'Original', slug: 'only-once' },
      });
      await bridge.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: { name: 'Copycat Org', slug: 'only-once' },
      });
      const list = await bridge.request('GET', '/api/public/organizations?limit=100', {
        key: admin.key,
      });
      expect(list.body.data.map((o: Organization) => o.name)).not.toContain('Copycat Org');
    });

    it.each([
      ['uppercase', 'Bad', 'invalid_format'],
      ['leading hyphen', '-a', 'invalid_format'],
      ['trailing hyphen', 'a-', 'invalid_format'],
      ['64 characters', 'a'.repeat(64), 'too_long'],
      ['underscore', 'a_b', 'invalid_format'],
      ['empty', '', 'required'],
    ])('rejects an invalid slug (%s) with fieldErrors.slug', async (_case, slug, code) => {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: { name: 'Bad Slug', slug },
      });
      expect(res.status).toBe(400);
      expect(ErrorBody.parse(res.body).error.title).toBe('ValidationError');
      expect(Object.keys(res.body.error.fieldErrors)).toEqual(['slug']);
      expect(res.body.error.fieldCodes).toEqual({ slug: code });
    });
  });

  describe('embedAllowedOrigins', () => {
    it.each([
      ['uppercase', 'HTTPS://App.Example.COM', 'https://app.example.com'],
      ['trailing slash', 'https://app.example.com/', 'https://app.example.com'],
      ['default port', 'https://app.example.com:443', 'https://app.example.com'],
      ['IDN as punycode', 'https://münchen.de', 'https://xn--mnchen-3ya.de'],
      ['non-default port kept', 'https://app.example.com:8443', 'https://app.example.com:8443'],
      ['wildcard', 'https://*.Example.com/', 'https://*.example.com'],
      ['localhost over http', 'http://LOCALHOST:5173', 'http://localhost:5173'],
    ])('normalizes an origin (%s)', async (_case, input, stored) => {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: { name: 'Origins', embedAllowedOrigins: [input] },
      });
      expect(res.status).toBe(201);
      expect(Organization.parse(res.body.data).embedAllowedOrigins).toEqual([stored]);
    });

    it('returns the normalized origins on a later get', async () => {
      const created = await bridge.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: { name: 'Stored Origins', embedAllowedOrigins: ['HTTPS://A.Example.com:443/'] },
      });
      const res = await bridge.request('GET', `/api/public/organizations/${created.body.data.id}`, {
        key: admin.key,
      });
      expect(res.body.data.embedAllowedOrigins).toEqual(['https://a.example.com']);
    });

    it.each([
      ['http for a public host', 'http://example.com'],
      ['wildcard over a public suffix', 'https://*.com'],
      ['wildcard in the middle', 'https://a.*.b.com'],
      ['path', 'https://x.com/path'],
      ['userinfo', 'https://u@x.com'],
    ])('rejects an origin with a %s under its index', async (_case, bad) => {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: { name: 'Bad Origins', embedAllowedOrigins: ['https://ok.example.com', bad] },
      });
      expect(res.status).toBe(400);
      expect(ErrorBody.parse(res.body).error.title).toBe('ValidationError');
      expect(Object.keys(res.body.error.fieldErrors)).toEqual(['embedAllowedOrigins.1']);
      expect(res.body.error.fieldCodes).toEqual({ 'embedAllowedOrigins.1': 'invalid_origin' });
    });

    it('reports every invalid entry at once', async () => {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: {
          name: 'Many Bad Origins',
          embedAllowedOrigins: [
            'http://example.com',
            'https://*.com',
            'https://fine.example.com',
            'https://x.com/path',
          ],
        },
      });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.fieldErrors).sort()).toEqual([
        'embedAllowedOrigins.0',
        'embedAllowedOrigins.1',
        'embedAllowedOrigins.3',
      ]);
    });

    it('creates nothing when an origin is invalid', async () => {
      await bridge.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: { name: 'Rejected Origins Org', embedAllowedOrigins: ['https://u@x.com'] },
      });
      const list = await bridge.request('GET', '/api/public/organizations?limit=100', {
        key: admin.key,
      });
      expect(list.body.data.map((o: Organization) => o.name)).not.toContain('Rejected Origins Org');
    });
  });

  describe('list and get', () => {
    it('lists what it created, paginated', async () => {
      const res = await bridge.request('GET', '/api/public/organizations', { key: admin.key });
      expect(res.status).toBe(200);
      const page = pageOf(Organization).parse(res.body);
      expect(page.data.map((o) => o.name)).toContain('Acme Analytics');
      expect(page.pagination).toEqual({ nextCursor: null, hasMore: false });
    });

    it('lists only the organizations the caller belongs to', async () => {
      const fresh = await bridge.newUser();
      await bridge.request('POST', '/api/public/organizations', {
        key: fresh.key,
        body: { name: 'Fresh Only' },
      });
      const res = await bridge.request('GET', '/api/public/organizations', { key: fresh.key });
      expect(res.status).toBe(200);
      expect(res.body.data.map((o: Organization) => o.name)).toEqual(['Fresh Only']);
    });

    it('lists nothing for a user without organizations', async () => {
      const lonely = await bridge.newUser();
      const res = await bridge.request('GET', '/api/public/organizations', { key: lonely.key });
      expect(res.status).toBe(200);
      expect(pageOf(Organization).parse(res.body)).toEqual({
        data: [],
        pagination: { nextCursor: null, hasMore: false },
      });
    });

    it('gets one organization with every field of the contract', async () => {
      const res = await bridge.request('GET', `/api/public/organizations/${sharedOrg.id}`, {
        key: admin.key,
      });
      expect(res.status).toBe(200);
      const org = Organization.parse(res.body.data);
      expect(Object.keys(res.body.data).sort()).toEqual(ORG_FIELDS);
      const { jwtSecret: _secret, ...created } = sharedOrg;
      expect(org).toEqual(created);
    });

    it('lets a MEMBER get the organization', async () => {
      const res = await bridge.request('GET', `/api/public/organizations/${sharedOrg.id}`, {
        key: memberUser.key,
      });
      expect(res.status).toBe(200);
      expect(Organization.parse(res.body.data).id).toBe(sharedOrg.id);
    });

    it('answers 404 NotFound for an unknown organization id', async () => {
      const res = await bridge.request(
        'GET',
        '/api/public/organizations/org_00000000000000000000000000',
        {
          key: admin.key,
        },
      );
      expect(res.status).toBe(404);
      expect(ErrorBody.parse(res.body).error.title).toBe('NotFound');
      expect(res.body.error.code).toBe('organization_not_found');
    });

    it('answers a non-member exactly like an unknown id', async () => {
      const unknown = await bridge.request(
        'GET',
        '/api/public/organizations/org_00000000000000000000000000',
        { key: stranger.key },
      );
      const res = await bridge.request('GET', `/api/public/organizations/${sharedOrg.id}`, {
        key: stranger.key,
      });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(unknown.body);
    });
  });
});
