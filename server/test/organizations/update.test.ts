import { dataOf, ErrorBody, Organization } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';
import { createOrg, kitSignIn } from '../sso/support';

const UNKNOWN_ORG = 'org_00000000000000000000000000';
const ADMIN_ONLY = {
  title: 'Forbidden',
  detail: 'Only an ADMIN of the organization can do this',
  code: 'admin_required',
};
const SLUG_TAKEN = {
  title: 'Conflict',
  detail: 'That slug is already taken',
  code: 'slug_taken',
  fieldErrors: { slug: 'Already taken' },
  fieldCodes: { slug: 'slug_taken' },
};

type User = { key: string; userId: string; email: string };

describe.each(ENGINES)('PATCH /organizations/{orgId} on %s', (engine) => {
  let bridge: TestBridge;
  let admin: User;
  let memberUser: User;
  let stranger: User;

  beforeAll(async () => {
    bridge = await startBridge(engine);
    admin = await bridge.newUser();
    memberUser = await bridge.newUser();
    stranger = await bridge.newUser();
  });
  afterAll(() => bridge.stop());

  /** A fresh organization of `admin`, with memberUser as a MEMBER. */
  async function freshOrg(body: Record<string, unknown> = {}) {
    const org = await createOrg(bridge, admin.key, body);
    const added = await bridge.request('POST', `/api/public/organizations/${org.id}/members`, {
      key: admin.key,
      body: { email: memberUser.email, role: 'MEMBER' },
    });
    if (added.status !== 201) throw new Error(`add member: ${added.text}`);
    return org;
  }

  const patch = (orgId: string, body: unknown, key = admin.key, query = '') =>
    bridge.request('PATCH', `/api/public/organizations/${orgId}${query}`, { key, body });

  const get = async (orgId: string) =>
    Organization.parse(
      (await bridge.request('GET', `/api/public/organizations/${orgId}`, { key: admin.key })).body
        .data,
    );

  describe('changes', () => {
    it('changes every field it is sent and answers the whole record', async () => {
      const org = await freshOrg({ customAiContext: 'old' });
      await new Promise((r) => setTimeout(r, 5));
      const res = await patch(org.id, {
        name: '  Renamed Co  ',
        slug: `renamed-${org.id.slice(-8).toLowerCase()}`,
        customAiContext: 'Finance data',
        fullEmbedEnabled: true,
        embedAllowedOrigins: ['HTTPS://App.Example.COM:443/', 'https://*.tenants.example.com'],
        onboardingStatus: 'COMPLETED',
      });
      expect(res.status).toBe(200);
      const updated = dataOf(Organization).parse(res.body).data;
      expect(updated).toEqual({
        id: org.id,
        name: 'Renamed Co',
        slug: `renamed-${org.id.slice(-8).toLowerCase()}`,
        customAiContext: 'Finance data',
        onboardingStatus: 'COMPLETED',
        fullEmbedEnabled: true,
        embedAllowedOrigins: ['https://app.example.com', 'https://*.tenants.example.com'],
        previousJwtSecretExpiresAt: null,
        createdAt: org.createdAt,
        updatedAt: updated.updatedAt,
      });
      expect(Date.parse(updated.updatedAt)).toBeGreaterThan(Date.parse(org.updatedAt));
      expect(await get(org.id)).toEqual(updated);
    });

    it('leaves every omitted field as it was', async () => {
      const org = await freshOrg({
        customAiContext: 'keep me',
        fullEmbedEnabled: true,
        embedAllowedOrigins: ['https://keep.example.com'],
      });
      const res = await patch(org.id, { name: 'Only The Name' });
      expect(res.status).toBe(200);
      const { jwtSecret: _secret, ...before } = org;
      expect(res.body.data).toEqual({
        ...before,
        name: 'Only The Name',
        updatedAt: res.body.data.updatedAt,
      });
    });

    it('clears customAiContext with null', async () => {
      const org = await freshOrg({ customAiContext: 'to be cleared' });
      const res = await patch(org.id, { customAiContext: null });
      expect(res.status).toBe(200);
      expect(res.body.data.customAiContext).toBeNull();
      expect((await get(org.id)).customAiContext).toBeNull();
    });

    it('replaces the origin list, normalized and without duplicates, and empties it', async () => {
      const org = await freshOrg({ embedAllowedOrigins: ['https://old.example.com'] });
      const res = await patch(org.id, {
        embedAllowedOrigins: ['https://new.example.com', 'HTTPS://NEW.example.com/'],
      });
      expect(res.body.data.embedAllowedOrigins).toEqual(['https://new.example.com']);
      const emptied = await patch(org.id, { embedAllowedOrigins: [] });
      expect(emptied.status).toBe(200);
      expect((await get(org.id)).embedAllowedOrigins).toEqual([]);
    });

    it('turns full embed off and on', async () => {
      const org = await freshOrg({ fullEmbedEnabled: true });
      expect((await patch(org.id, { fullEmbedEnabled: false })).body.data.fullEmbedEnabled).toBe(
        false,
      );
      expect((await get(org.id)).fullEmbedEnabled).toBe(false);
      expect((await patch(org.id, { fullEmbedEnabled: true })).body.data.fullEmbedEnabled).toBe(
        true,
      );
    });

    it('accepts its own current slug', async () => {
      const org = await freshOrg();
      const res = await patch(org.id, { slug: org.slug });
      expect(res.status).toBe(200);
      expect(res.body.data.slug).toBe(org.slug);
    });

    it('accepts an empty body: nothing changes but updatedAt', async () => {
      const org = await freshOrg();
      const res = await patch(org.id, {});
      expect(res.status).toBe(200);
      expect(res.body.data.name).toBe(org.name);
    });

    it('moves onboarding from STARTED to COMPLETED, and accepts COMPLETED again', async () => {
      const org = await freshOrg();
      expect(org.onboardingStatus).toBe('STARTED');
      expect((await patch(org.id, { onboardingStatus: 'STARTED' })).status).toBe(200);
      const done = await patch(org.id, { onboardingStatus: 'COMPLETED' });
      expect(done.body.data.onboardingStatus).toBe('COMPLETED');
      const again = await patch(org.id, { onboardingStatus: 'COMPLETED' });
      expect(again.status).toBe(200);
      expect(again.body.data.onboardingStatus).toBe('COMPLETED');
    });

    it('returns the jwtSecret with include=jwtSecret to an ADMIN key', async () => {
      const org = await freshOrg();
      const res = await patch(org.id, { name: 'With Secret' }, admin.key, '?include=jwtSecret');
      expect(res.status).toBe(200);
      expect(res.body.data.jwtSecret).toBe(org.jwtSecret);
    });

    it('lets an ADMIN session change it, never giving it the jwtSecret', async () => {
      const org = await freshOrg();
      const session = await kitSignIn(bridge, org, { role: 'ADMIN' });
      const res = await patch(
        org.id,
        { name: 'By Session' },
        session.sessionToken,
        '?include=jwtSecret',
      );
      expect(res.status).toBe(200);
      expect(res.body.data.name).toBe('By Session');
      expect(res.body.data).not.toHaveProperty('jwtSecret');
    });
  });

  describe('refusals', () => {
    let org: Awaited<ReturnType<typeof freshOrg>>;

    beforeAll(async () => {
      org = await freshOrg({ embedAllowedOrigins: ['https://kept.example.com'] });
    });

    const expectUnchanged = async () => {
      const { jwtSecret: _secret, ...created } = org;
      expect(await get(org.id)).toEqual(created);
    };

    it.each([
      ['onboardingStatus back to STARTED', 'COMPLETED', 'STARTED'],
      ['onboardingStatus to LEGACY', 'STARTED', 'LEGACY'],
      ['onboardingStatus of a LEGACY record', 'LEGACY', 'COMPLETED'],
    ])('answers 400 for %s', async (_case, from, to) => {
      const target = await freshOrg();
      await bridge.deps.store.db
        .updateTable('organizations')
        .set({ onboardingStatus: from })
        .where('id', '=', target.id)
        .execute();
      const res = await patch(target.id, { onboardingStatus: to, name: 'Not Applied' });
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        title: 'ValidationError',
        detail: 'onboardingStatus can only move forward',
        code: 'validation_failed',
        fieldErrors: {
          onboardingStatus: `Can only move forward, from STARTED to COMPLETED (it is ${from})`,
        },
        fieldCodes: { onboardingStatus: 'onboarding_backwards' },
      });
      expect((await get(target.id)).name).toBe(target.name);
    });

    it('answers 409 with fieldErrors.slug for a slug another organization has', async () => {
      const other = await freshOrg();
      const res = await patch(org.id, { slug: other.slug });
      expect(res.status).toBe(409);
      expect(res.body.error).toEqual(SLUG_TAKEN);
      await expectUnchanged();
    });

    it('lets one of two organizations racing for one free slug have it; the other gets 409', async () => {
      const [a, b] = [await freshOrg(), await freshOrg()];
      const slug = `raced-${a.id.slice(-10).toLowerCase()}`;
      const results = await Promise.all([patch(a.id, { slug }), patch(b.id, { slug })]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      expect(results.find((r) => r.status === 409)?.body.error).toEqual(SLUG_TAKEN);
    });

    it.each([
      [
        'an unknown field',
        { name: 'X', owner: 'me' },
        { owner: 'Unknown field' },
        { owner: 'unknown_field' },
      ],
      [
        'skipOnboarding (create only)',
        { skipOnboarding: true },
        { skipOnboarding: 'Unknown field' },
        { skipOnboarding: 'unknown_field' },
      ],
      [
        'an empty name',
        { name: '   ' },
        { name: 'Must be at least 1 character' },
        { name: 'required' },
      ],
      [
        'a long name',
        { name: 'n'.repeat(201) },
        { name: 'Must be at most 200 characters' },
        { name: 'too_long' },
      ],
      [
        'a bad slug',
        { slug: 'Not A Slug' },
        { slug: 'Must be lowercase letters, digits and inner hyphens' },
        { slug: 'invalid_format' },
      ],
      [
        'a long customAiContext',
        { customAiContext: 'c'.repeat(10_001) },
        { customAiContext: 'Must be at most 10000 characters' },
        { customAiContext: 'too_long' },
      ],
      [
        'a non-boolean fullEmbedEnabled',
        { fullEmbedEnabled: 'yes' },
        { fullEmbedEnabled: 'Invalid input: expected boolean, received string' },
        { fullEmbedEnabled: 'invalid_type' },
      ],
      [
        'an unknown onboardingStatus',
        { onboardingStatus: 'DONE' },
        { onboardingStatus: 'Invalid option: expected one of "LEGACY"|"STARTED"|"COMPLETED"' },
        { onboardingStatus: 'invalid_value' },
      ],
      [
        'more than 100 origins',
        { embedAllowedOrigins: Array.from({ length: 101 }, (_, i) => `https://o${i}.example.com`) },
        { embedAllowedOrigins: 'At most 100 origins' },
        { embedAllowedOrigins: 'too_long' },
      ],
    ])('answers 400 for %s, naming the field', async (_case, body, fieldErrors, fieldCodes) => {
      const res = await patch(org.id, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        title: 'ValidationError',
        detail: `Request body is invalid: ${Object.keys(fieldErrors).join(', ')}`,
        code: 'validation_failed',
        fieldErrors,
        fieldCodes,
      });
      await expectUnchanged();
    });

    it('answers 400 for invalid origins, each under its index, as create does', async () => {
      const res = await patch(org.id, {
        embedAllowedOrigins: ['https://fine.example.com', 'https://*.com', 'https://x.com/path'],
      });
      expect(res.status).toBe(400);
      expect(res.body.error.title).toBe('ValidationError');
      expect(res.body.error.detail).toBe('Invalid embedAllowedOrigins');
      expect(Object.keys(res.body.error.fieldErrors)).toEqual([
        'embedAllowedOrigins.1',
        'embedAllowedOrigins.2',
      ]);
      expect(res.body.error.fieldErrors['embedAllowedOrigins.2']).toBe('Must not contain a path');
      await expectUnchanged();
    });

    it('answers 400 for an unknown include', async () => {
      const res = await patch(org.id, { name: 'X' }, admin.key, '?include=secrets');
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        title: 'ValidationError',
        detail: 'Query string is invalid: include',
        code: 'validation_failed',
        fieldErrors: { include: 'Allowed value: jwtSecret' },
        fieldCodes: { include: 'invalid_value' },
      });
    });

    it('answers 403 to a MEMBER key and to a MEMBER session, changing nothing', async () => {
      const session = await kitSignIn(bridge, org, { email: memberUser.email });
      for (const key of [memberUser.key, session.sessionToken]) {
        const res = await patch(org.id, { name: 'Member Was Here' }, key);
        expect(res.status).toBe(403);
        expect(res.body.error).toEqual(ADMIN_ONLY);
      }
      await expectUnchanged();
    });

    it.each([
      ['embedAllowedOrigins', { embedAllowedOrigins: ['https://evil.example'] }],
      ['fullEmbedEnabled', { fullEmbedEnabled: false }],
      ['slug', { slug: 'moved-by-session' }],
      ['embedAllowedOrigins', { name: 'Also Named', embedAllowedOrigins: [] }],
    ])(
      'answers 403 api_key_required when an ADMIN session changes %s, changing nothing',
      async (field, body) => {
        const session = await kitSignIn(bridge, org, { role: 'ADMIN' });
        const res = await patch(org.id, body, session.sessionToken);
        expect(res.status).toBe(403);
        expect(res.body.error).toEqual({
          title: 'Forbidden',
          detail: `Only an API key can change ${field}`,
          code: 'api_key_required',
          fieldErrors: { [field]: 'Only an API key can change this' },
          fieldCodes: { [field]: 'api_key_required' },
        });
        await expectUnchanged();
      },
    );

    it('names every host setting an ADMIN session sends', async () => {
      const session = await kitSignIn(bridge, org, { role: 'ADMIN' });
      const res = await patch(
        org.id,
        { slug: 'x-by-session', fullEmbedEnabled: true, embedAllowedOrigins: [] },
        session.sessionToken,
      );
      expect(res.status).toBe(403);
      expect(res.body.error.detail).toBe(
        'Only an API key can change slug, fullEmbedEnabled, embedAllowedOrigins',
      );
      expect(Object.keys(res.body.error.fieldCodes)).toEqual([
        'slug',
        'fullEmbedEnabled',
        'embedAllowedOrigins',
      ]);
      await expectUnchanged();
    });

    it('lets the ADMIN key change the same host settings (control)', async () => {
      const target = await freshOrg();
      const res = await patch(target.id, {
        fullEmbedEnabled: true,
        embedAllowedOrigins: ['https://host.example.com'],
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        fullEmbedEnabled: true,
        embedAllowedOrigins: ['https://host.example.com'],
      });
    });

    it('answers 404 to a non-member, the same body as an unknown id', async () => {
      const unknown = await patch(UNKNOWN_ORG, { name: 'X' }, stranger.key);
      const res = await patch(org.id, { name: 'X' }, stranger.key);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(unknown.body);
      expect(ErrorBody.parse(res.body).error).toEqual({
        title: 'NotFound',
        detail: 'Organization not found',
        code: 'organization_not_found',
      });
    });

    it('answers 401 without credentials', async () => {
      const res = await bridge.request('PATCH', `/api/public/organizations/${org.id}`, {
        body: { name: 'X' },
      });
      expect(res.status).toBe(401);
      expect(res.body.error).toEqual({
        title: 'Unauthorized',
        detail: 'Missing, invalid, revoked or expired credentials',
        code: 'invalid_credentials',
      });
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    });

    it('answers 415 for a body that is not JSON', async () => {
      const res = await bridge.request('PATCH', `/api/public/organizations/${org.id}`, {
        key: admin.key,
        rawBody: 'name=X',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(res.status).toBe(415);
      expect(res.body.error.title).toBe('UnsupportedMediaType');
      await expectUnchanged();
    });
  });
});
