import { DataSource } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';

const TRIALS = 12;
// The deadlock this guards against needs the DELETE to land inside a window of well under a
// millisecond; 150 tries hit it most runs when the lock order is wrong.
const DELETE_TRIALS = 150;

/**
 * Two PATCHes, each valid on its own, whose combination is not: one turns the SSH tunnel on
 * (with its password), the other removes the SSH password. Sent together, the second to run
 * must see the first's result and be refused; the stored record must always stay complete.
 */
describe.each(STORE_ENGINES)('concurrent PATCHes of one data source on %s', (engine) => {
  let bridge: TestBridge;
  let admin: { key: string };
  let orgId: string;

  beforeAll(async () => {
    // Hundreds of requests from one key in a few seconds: the tests are about races, not limits.
    bridge = await startBridge(engine, { BRIDGE_RATE_LIMIT_PER_MINUTE: '100000' });
    admin = await bridge.newUser();
    const org = await bridge.request('POST', '/api/public/organizations', {
      key: admin.key,
      body: { name: `Race ${engine}` },
    });
    orgId = org.body.data.id;
  });
  afterAll(() => bridge.stop());

  it('never stores a record that neither PATCH would have allowed', async () => {
    const base = `/api/public/organizations/${orgId}/data-sources`;
    const outcomes: string[] = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      const created = await bridge.request('POST', base, {
        key: admin.key,
        body: {
          dialect: 'POSTGRES',
          displayName: `Race ${trial}`,
          host: 'pg.example.com',
          username: 'reader',
          sshPassword: 'ssh-pw-old',
        },
      });
      expect(created.status).toBe(201);
      const path = `${base}/${created.body.data.id}`;
      const [on, unset] = await Promise.all([
        bridge.request('PATCH', path, {
          key: admin.key,
          body: { sshEnabled: true, sshHost: 'bastion.example.com', sshUsername: 'tunnel' },
        }),
        bridge.request('PATCH', path, { key: admin.key, body: { unsetSshPassword: true } }),
      ]);
      outcomes.push(`${on.status}/${unset.status}`);
      // Whichever ran second saw the first: at most one of them may be refused, with its reason.
      for (const refused of [on, unset].filter((r) => r.status !== 200)) {
        expect(refused.status).toBe(400);
        expect(refused.body.error.title).toBe('ValidationError');
        expect(refused.body.error.fieldErrors).toHaveProperty('sshPassword');
      }
      const stored = DataSource.parse(
        (await bridge.request('GET', path, { key: admin.key })).body.data,
      );
      if (stored.sshEnabled) expect(stored.storedSecrets).toContain('sshPassword');
    }
    expect(outcomes.every((o) => o !== '400/400')).toBe(true);
  });

  it('lets a PATCH racing a DELETE of the same source end either way, never with a 5xx', async () => {
    const base = `/api/public/organizations/${orgId}/data-sources`;
    for (let trial = 0; trial < DELETE_TRIALS; trial++) {
      const created = await bridge.request('POST', base, {
        key: admin.key,
        body: { dialect: 'POSTGRES', displayName: `Gone ${trial}`, host: 'h', username: 'u' },
      });
      const path = `${base}/${created.body.data.id}`;
      const [patched, deleted] = await Promise.all([
        bridge.request('PATCH', path, { key: admin.key, body: { description: `t${trial}` } }),
        bridge.request('DELETE', path, { key: admin.key }),
      ]);
      expect(deleted.status).toBe(200);
      // Before the delete: 200; after it: 404 NotFound.
      expect([200, 404]).toContain(patched.status);
      if (patched.status === 404) expect(patched.body.error.title).toBe('NotFound');
      expect((await bridge.request('GET', path, { key: admin.key })).status).toBe(404);
    }
  });
});
