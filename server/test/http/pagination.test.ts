import { ErrorBody, Member, Organization, pageOf } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';
import { createOrganization } from '../../src/domain/organizations';

const OrgPage = pageOf(Organization);
const MemberPage = pageOf(Member);

describe.each(ENGINES)('pagination on %s', (engine) => {
  let bridge: TestBridge;
  let walker: { key: string; userId: string };
  /** The 7 organizations of walker, in creation order. */
  const orgIds: string[] = [];
  let bulk: { key: string; userId: string };
  let membersOrgId: string;
  /** A MEMBER of membersOrgId: a MEMBER may list members. */
  let membersWalker: { key: string; userId: string };
  /** The 7 members of membersOrgId (the ADMIN first), in creation order. */
  const memberIds: string[] = [];

  beforeAll(async () => {
    bridge = await startBridge(engine);
    walker = await bridge.newUser();
    const other = await bridge.newUser();
    // Another user's organizations interleave with walker's: they must never show up.
    for (let i = 0; i < 7; i++) {
      const res = await bridge.request('POST', '/api/public/organizations', {
        key: walker.key,
        body: { name: `Walk ${i}` },
      });
      orgIds.push(res.body.data.id);
      await bridge.request('POST', '/api/public/organizations', {
        key: other.key,
        body: { name: `Other ${i}` },
      });
    }

    bulk = await bridge.newUser();
    for (let i = 0; i < 101; i++) {
      await createOrganization(bridge.deps, bulk.userId, { name: `Bulk ${i}` });
    }

    const org = await bridge.request('POST', '/api/public/organizations', {
      key: other.key,
      body: { name: 'Members Walk' },
    });
    membersOrgId = org.body.data.id;
    const first = await bridge.request('GET', `/api/public/organizations/${membersOrgId}/members`, {
      key: other.key,
    });
    memberIds.push(first.body.data[0].id);
    for (let i = 0; i < 6; i++) {
      const res = await bridge.request(
        'POST',
        `/api/public/organizations/${membersOrgId}/members`,
        { key: other.key, body: { email: `walk-member-${i}@example.com`, role: 'MEMBER' } },
      );
      memberIds.push(res.body.data.id);
    }
    membersWalker = await bridge.newUser('walk-member-0@example.com');
  });
  afterAll(() => bridge.stop());

  describe('organizations', () => {
    it('walks 7 organizations with limit 3 in exactly 3 pages', async () => {
      const sizes: number[] = [];
      let cursor: string | null = null;
      do {
        const query: string = cursor ? `&cursor=${cursor}` : '';
        const res = await bridge.request('GET', `/api/public/organizations?limit=3${query}`, {
          key: walker.key,
        });
        expect(res.status).toBe(200);
        const page = OrgPage.parse(res.body);
        sizes.push(page.data.length);
        cursor = page.pagination.nextCursor;
      } while (cursor && sizes.length < 10);
      expect(sizes).toEqual([3, 3, 1]);
    });

    it('returns every organization once, ids strictly ascending, no gaps', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const query: string = cursor ? `&cursor=${cursor}` : '';
        const res = await bridge.request('GET', `/api/public/organizations?limit=3${query}`, {
          key: walker.key,
        });
        const page = OrgPage.parse(res.body);
        seen.push(...page.data.map((o) => o.id));
        cursor = page.pagination.nextCursor;
      } while (cursor && seen.length < 30);
      for (let i = 1; i < seen.length; i++) expect(seen[i]! > seen[i - 1]!).toBe(true);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toEqual(orgIds);
    });

    it('sets hasMore and nextCursor to the last id on the pages before the last', async () => {
      const first = OrgPage.parse(
        (await bridge.request('GET', '/api/public/organizations?limit=3', { key: walker.key }))
          .body,
      );
      expect(first.pagination).toEqual({ hasMore: true, nextCursor: orgIds[2] });
      const second = OrgPage.parse(
        (
          await bridge.request('GET', `/api/public/organizations?limit=3&cursor=${orgIds[2]}`, {
            key: walker.key,
          })
        ).body,
      );
      expect(second.pagination).toEqual({ hasMore: true, nextCursor: orgIds[5] });
    });

    it('ends with hasMore false and nextCursor null on the last page', async () => {
      const res = await bridge.request(
        'GET',
        `/api/public/organizations?limit=3&cursor=${orgIds[5]}`,
        { key: walker.key },
      );
      expect(OrgPage.parse(res.body)).toMatchObject({
        data: [{ id: orgIds[6] }],
        pagination: { hasMore: false, nextCursor: null },
      });
    });

    it('ends with hasMore false when the last page is exactly full', async () => {
      const res = await bridge.request(
        'GET',
        `/api/public/organizations?limit=3&cursor=${orgIds[3]}`,
        { key: walker.key },
      );
      const page = OrgPage.parse(res.body);
      expect(page.data.map((o) => o.id)).toEqual(orgIds.slice(4));
      expect(page.pagination).toEqual({ hasMore: false, nextCursor: null });
    });

    it('answers an empty last page after the final cursor', async () => {
      const res = await bridge.request(
        'GET',
        `/api/public/organizations?limit=3&cursor=${orgIds[6]}`,
        { key: walker.key },
      );
      expect(OrgPage.parse(res.body)).toEqual({
        data: [],
        pagination: { hasMore: false, nextCursor: null },
      });
    });

    it('returns one item with limit=1', async () => {
      const res = await bridge.request('GET', '/api/public/organizations?limit=1', {
        key: walker.key,
      });
      expect(res.status).toBe(200);
      const page = OrgPage.parse(res.body);
      expect(page.data.map((o) => o.id)).toEqual([orgIds[0]]);
      expect(page.pagination).toEqual({ hasMore: true, nextCursor: orgIds[0] });
    });

    it('walks 7 organizations with limit=1 in 7 pages', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const query: string = cursor ? `&cursor=${cursor}` : '';
        const res = await bridge.request('GET', `/api/public/organizations?limit=1${query}`, {
          key: walker.key,
        });
        const page = OrgPage.parse(res.body);
        seen.push(...page.data.map((o) => o.id));
        cursor = page.pagination.nextCursor;
      } while (cursor && seen.length < 30);
      expect(seen).toEqual(orgIds);
    });

    it('returns 100 items with limit=100 when more follow', async () => {
      const res = await bridge.request('GET', '/api/public/organizations?limit=100', {
        key: bulk.key,
      });
      expect(res.status).toBe(200);
      const page = OrgPage.parse(res.body);
      expect(page.data).toHaveLength(100);
      expect(page.pagination).toEqual({ hasMore: true, nextCursor: page.data[99]!.id });
    });

    it('returns the 101st item on the page after limit=100', async () => {
      const first = OrgPage.parse(
        (await bridge.request('GET', '/api/public/organizations?limit=100', { key: bulk.key }))
          .body,
      );
      const res = await bridge.request(
        'GET',
        `/api/public/organizations?limit=100&cursor=${first.pagination.nextCursor}`,
        { key: bulk.key },
      );
      const page = OrgPage.parse(res.body);
      expect(page.data.map((o) => o.name)).toEqual(['Bulk 100']);
      expect(page.pagination).toEqual({ hasMore: false, nextCursor: null });
    });

    it('returns 50 items by default', async () => {
      const res = await bridge.request('GET', '/api/public/organizations', { key: bulk.key });
      const page = OrgPage.parse(res.body);
      expect(page.data).toHaveLength(50);
      expect(page.pagination.hasMore).toBe(true);
    });

    it.each([
      ['0', '0', 'out_of_range'],
      ['101', '101', 'out_of_range'],
      ['abc', 'abc', 'invalid_format'],
      ['1.5', '1.5', 'invalid_format'],
      ['-1', '-1', 'invalid_format'],
      ['empty', '', 'invalid_format'],
      ['1e2', '1e2', 'invalid_format'],
      ['+5', '%2B5', 'invalid_format'],
    ])('rejects limit=%s with 400 fieldErrors.limit', async (_case, limit, code) => {
      const res = await bridge.request('GET', `/api/public/organizations?limit=${limit}`, {
        key: walker.key,
      });
      expect(res.status).toBe(400);
      expect(ErrorBody.parse(res.body).error.title).toBe('ValidationError');
      expect(Object.keys(res.body.error.fieldErrors)).toEqual(['limit']);
      expect(res.body.error.fieldCodes).toEqual({ limit: code });
    });

    it('rejects a repeated limit with 400 fieldErrors.limit', async () => {
      const res = await bridge.request('GET', '/api/public/organizations?limit=1&limit=2', {
        key: walker.key,
      });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.fieldErrors)).toEqual(['limit']);
    });

    it('rejects an unknown query parameter with 400 naming it', async () => {
      const res = await bridge.request('GET', '/api/public/organizations?page=2', {
        key: walker.key,
      });
      expect(res.status).toBe(400);
      expect(ErrorBody.parse(res.body).error.title).toBe('ValidationError');
      expect(Object.keys(res.body.error.fieldErrors)).toEqual(['page']);
      expect(res.body.error.fieldCodes).toEqual({ page: 'unknown_field' });
    });
  });

  describe('members', () => {
    it('walks 7 members with limit 3 in 3 pages, ascending, no gaps', async () => {
      const sizes: number[] = [];
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const query: string = cursor ? `&cursor=${cursor}` : '';
        const res = await bridge.request(
          'GET',
          `/api/public/organizations/${membersOrgId}/members?limit=3${query}`,
          { key: membersWalker.key },
        );
        expect(res.status).toBe(200);
        const page = MemberPage.parse(res.body);
        sizes.push(page.data.length);
        seen.push(...page.data.map((m) => m.id));
        cursor = page.pagination.nextCursor;
      } while (cursor && sizes.length < 10);
      expect(sizes).toEqual([3, 3, 1]);
      for (let i = 1; i < seen.length; i++) expect(seen[i]! > seen[i - 1]!).toBe(true);
      expect(seen).toEqual(memberIds);
    });

    it('sets hasMore and nextCursor on a member page that is not the last', async () => {
      const res = await bridge.request(
        'GET',
        `/api/public/organizations/${membersOrgId}/members?limit=3`,
        { key: membersWalker.key },
      );
      expect(MemberPage.parse(res.body).pagination).toEqual({
        hasMore: true,
        nextCursor: memberIds[2],
      });
    });

    it('ends the member walk with hasMore false and nextCursor null', async () => {
      const res = await bridge.request(
        'GET',
        `/api/public/organizations/${membersOrgId}/members?limit=3&cursor=${memberIds[5]}`,
        { key: membersWalker.key },
      );
      expect(MemberPage.parse(res.body)).toMatchObject({
        data: [{ id: memberIds[6] }],
        pagination: { hasMore: false, nextCursor: null },
      });
    });

    it('returns one member with limit=1', async () => {
      const res = await bridge.request(
        'GET',
        `/api/public/organizations/${membersOrgId}/members?limit=1`,
        { key: membersWalker.key },
      );
      const page = MemberPage.parse(res.body);
      expect(page.data.map((m) => m.id)).toEqual([memberIds[0]]);
      expect(page.pagination).toEqual({ hasMore: true, nextCursor: memberIds[0] });
    });

    it('returns all 7 members with limit=100', async () => {
      const res = await bridge.request(
        'GET',
        `/api/public/organizations/${membersOrgId}/members?limit=100`,
        { key: membersWalker.key },
      );
      const page = MemberPage.parse(res.body);
      expect(page.data.map((m) => m.id)).toEqual(memberIds);
      expect(page.pagination).toEqual({ hasMore: false, nextCursor: null });
    });

    it.each([['0'], ['101'], ['abc'], ['1.5'], ['-1']])(
      'rejects limit=%s on members with 400 fieldErrors.limit',
      async (limit) => {
        const res = await bridge.request(
          'GET',
          `/api/public/organizations/${membersOrgId}/members?limit=${limit}`,
          { key: membersWalker.key },
        );
        expect(res.status).toBe(400);
        expect(Object.keys(res.body.error.fieldErrors)).toEqual(['limit']);
      },
    );

    it('rejects an unknown query parameter on members with 400 naming it', async () => {
      const res = await bridge.request(
        'GET',
        `/api/public/organizations/${membersOrgId}/members?include=jwtSecret`,
        { key: membersWalker.key },
      );
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.fieldErrors)).toEqual(['include']);
    });
  });
});
