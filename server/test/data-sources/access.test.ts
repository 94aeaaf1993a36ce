import { DataSource, pageOf } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';
import { expectError } from './support';

const MINIMAL = {
  dialect: 'POSTGRES',
  displayName: 'Warehouse',
  host: 'db.example.com',
  username: 'analyst',
};
// requireAdmin answers before any connection is tried, so this host is never contacted.
const VERIFY_BODY = {
  dialect: 'POSTGRES',
  host: '127.0.0.1',
  port: 1,
  username: 'u',
  password: 'p',
};

describe.each(ENGINES)('data source roles and visibility on %s', (engine) => {
  let bridge: TestBridge;
  let admin: { key: string };
  let member: { key: string };
  let stranger: { key: string };
  let orgA: string;
  let orgB: string;
  /** A data source of orgA. */
  let source: DataSource;

  const under = (org: string) => `/api/public/organizations/${org}/data-sources`;

  beforeAll(async () => {
    bridge = await startBridge(engine);
    admin = await bridge.newUser();
    stranger = await bridge.newUser();
    orgA = (
      await bridge.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: { name: 'Org A' },
      })
    ).body.data.id;
    orgB = (
      await bridge.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: { name: 'Org B' },
      })
    ).body.data.id;
    const email = `ds-member-${engine}@example.com`;
    await bridge.request('POST', `/api/public/organizations/${orgA}/members`, {
      key: admin.key,
      body: { email, role: 'MEMBER' },
    });
    member = await bridge.newUser(email);
    source = (
      await bridge.request('POST', under(orgA), {
        key: admin.key,
        body: { ...MINIMAL, password: 'pw-access-1' },
      })
    ).body.data;
  });
  afterAll(() => bridge.stop());

  describe('a MEMBER', () => {
    it('can list the data sources', async () => {
      const res = await bridge.request('GET', under(orgA), { key: member.key });
      expect(res.status).toBe(200);
      expect(
        pageOf(DataSource)
          .parse(res.body)
          .data.map((d) => d.id),
      ).toContain(source.id);
    });

    it('can get a data source', async () => {
      const res = await bridge.request('GET', `${under(orgA)}/${source.id}`, { key: member.key });
      expect(res.status).toBe(200);
      expect(DataSource.parse(res.body.data)).toEqual(source);
    });

    it('gets 403 Forbidden on create', async () => {
      const res = await bridge.request('POST', under(orgA), { key: member.key, body: MINIMAL });
      expectError(res, 403, 'Forbidden', 'admin_required');
    });

    it('creates nothing with a refused create', async () => {
      const before = await bridge.request('GET', under(orgA), { key: admin.key });
      await bridge.request('POST', under(orgA), { key: member.key, body: MINIMAL });
      const after = await bridge.request('GET', under(orgA), { key: admin.key });
      expect(after.body.data).toEqual(before.body.data);
    });

    it('gets 403 Forbidden on patch', async () => {
      const res = await bridge.request('PATCH', `${under(orgA)}/${source.id}`, {
        key: member.key,
        body: { displayName: 'Hijacked' },
      });
      expectError(res, 403, 'Forbidden', 'admin_required');
    });

    it('leaves the record unchanged with a refused patch', async () => {
      await bridge.request('PATCH', `${under(orgA)}/${source.id}`, {
        key: member.key,
        body: { displayName: 'Hijacked', unsetPassword: true },
      });
      const res = await bridge.request('GET', `${under(orgA)}/${source.id}`, { key: admin.key });
      expect(res.body.data).toEqual(source);
    });

    it('gets 403 Forbidden on delete', async () => {
      const res = await bridge.request('DELETE', `${under(orgA)}/${source.id}`, {
        key: member.key,
      });
      expectError(res, 403, 'Forbidden', 'admin_required');
    });

    it('deletes nothing with a refused delete', async () => {
      await bridge.request('DELETE', `${under(orgA)}/${source.id}`, { key: member.key });
      const res = await bridge.request('GET', `${under(orgA)}/${source.id}`, { key: admin.key });
      expect(res.status).toBe(200);
    });

    it('gets 403 Forbidden on verify', async () => {
      const res = await bridge.request('POST', `${under(orgA)}/verify`, {
        key: member.key,
        body: VERIFY_BODY,
      });
      expectError(res, 403, 'Forbidden', 'admin_required');
    });
  });

  describe('a user who is not a member', () => {
    it('gets 404 NotFound on list', async () => {
      expectError(
        await bridge.request('GET', under(orgA), { key: stranger.key }),
        404,
        'NotFound',
        'organization_not_found',
      );
    });

    it('gets 404 NotFound on get', async () => {
      const res = await bridge.request('GET', `${under(orgA)}/${source.id}`, { key: stranger.key });
      expectError(res, 404, 'NotFound', 'organization_not_found');
    });

    it('gets 404 NotFound on create', async () => {
      const res = await bridge.request('POST', under(orgA), { key: stranger.key, body: MINIMAL });
      expectError(res, 404, 'NotFound', 'organization_not_found');
    });

    it('gets 404 NotFound on patch', async () => {
      const res = await bridge.request('PATCH', `${under(orgA)}/${source.id}`, {
        key: stranger.key,
        body: { displayName: 'Hijacked' },
      });
      expectError(res, 404, 'NotFound', 'organization_not_found');
    });

    it('gets 404 NotFound on delete', async () => {
      const res = await bridge.request('DELETE', `${under(orgA)}/${source.id}`, {
        key: stranger.key,
      });
      expectError(res, 404, 'NotFound', 'organization_not_found');
    });

    it('gets 404 NotFound on verify', async () => {
      const res = await bridge.request('POST', `${under(orgA)}/verify`, {
        key: stranger.key,
        body: VERIFY_BODY,
      });
      expectError(res, 404, 'NotFound', 'organization_not_found');
    });

    it('gets the same answer as for an organization that does not exist', async () => {
      const missing = await bridge.request('GET', under('org_00000000000000000000000000'), {
        key: stranger.key,
      });
      const hidden = await bridge.request('GET', under(orgA), { key: stranger.key });
      expect(hidden.status).toBe(missing.status);
      expect(hidden.body).toEqual(missing.body);
    });
  });

  describe('a data source of org A addressed under org B (caller is ADMIN of both)', () => {
    it('answers 404 NotFound on get', async () => {
      const res = await bridge.request('GET', `${under(orgB)}/${source.id}`, { key: admin.key });
      expectError(res, 404, 'NotFound', 'data_source_not_found');
    });

    it('answers 404 NotFound on patch', async () => {
      const res = await bridge.request('PATCH', `${under(orgB)}/${source.id}`, {
        key: admin.key,
        body: { displayName: 'Moved' },
      });
      expectError(res, 404, 'NotFound', 'data_source_not_found');
    });

    it('answers 404 NotFound on delete', async () => {
      const res = await bridge.request('DELETE', `${under(orgB)}/${source.id}`, {
        key: admin.key,
      });
      expectError(res, 404, 'NotFound', 'data_source_not_found');
    });

    it('leaves the record in org A unchanged', async () => {
      await bridge.request('PATCH', `${under(orgB)}/${source.id}`, {
        key: admin.key,
        body: { displayName: 'Moved' },
      });
      await bridge.request('DELETE', `${under(orgB)}/${source.id}`, { key: admin.key });
      const res = await bridge.request('GET', `${under(orgA)}/${source.id}`, { key: admin.key });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(source);
    });

    it('is not listed under org B', async () => {
      const res = await bridge.request('GET', under(orgB), { key: admin.key });
      expect(res.status).toBe(200);
      expect(res.body.data.map((d: DataSource) => d.id)).not.toContain(source.id);
    });
  });

  describe('without a key', () => {
    it('answers 401 Unauthorized with WWW-Authenticate: Bearer', async () => {
      const res = await bridge.request('GET', under(orgA));
      expectError(res, 401, 'Unauthorized', 'invalid_credentials');
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    });
  });
});
