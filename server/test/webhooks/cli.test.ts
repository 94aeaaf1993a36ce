import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type TestBridge } from '../../../test/support/bridge';
import { runBridgeCli } from '../../../test/support/bridge-cli';

const SECRETS = {
  BRIDGE_SECRET_KEY: randomBytes(32).toString('base64'),
  BRIDGE_SESSION_SECRET: randomBytes(32).toString('base64url'),
};

describe.each(['sqlite', 'postgres'] as const)('bridge webhooks commands on %s', (engine) => {
  let bridge: TestBridge;
  let env: Record<string, string | undefined>;
  let key: string;
  let orgId: string;
  const cli = (...args: string[]) => runBridgeCli(['webhooks', ...args], env);

  beforeAll(async () => {
    bridge = await startBridge(engine, SECRETS);
    env = {
      ...SECRETS,
      BRIDGE_DATA_DIR: bridge.dataDir,
      ...(bridge.databaseUrl ? { DATABASE_URL: bridge.databaseUrl } : {}),
    };
    key = (await bridge.newUser()).key;
    orgId = (
      await bridge.request('POST', '/api/public/organizations', { key, body: { name: 'CLI' } })
    ).body.data.id;
  });
  afterAll(() => bridge.stop());

  it('creates, lists, updates, tests, rotates and deletes an endpoint the API then shows', async () => {
    const created = await cli(
      'create',
      '--org',
      orgId,
      '--url',
      'https://hooks.example.com/cli',
      '--events',
      'member.added,organization.updated',
    );
    expect(created.code).toBe(0);
    const [id, secret] = created.stdout.trim().split('\t') as [string, string];
    expect(id).toMatch(/^whe_/);
    expect(secret).toMatch(/^whsec_/);
    const base = `/api/public/organizations/${orgId}/webhook-endpoints`;
    const shown = await bridge.request('GET', `${base}/${id}`, { key });
    expect(shown.body.data).toMatchObject({
      url: 'https://hooks.example.com/cli',
      eventTypes: ['member.added', 'organization.updated'],
    });

    const list = await cli('list', '--org', orgId);
    expect(list.stdout).toBe(
      `${id}\tenabled\thttps://hooks.example.com/cli\tmember.added,organization.updated\n`,
    );
    const updated = await cli('update', '--org', orgId, '--id', id, '--disable');
    expect(updated.code).toBe(0);
    expect(updated.stdout).toContain(`${id}\tdisabled\t`);

    const tested = await cli('test', '--org', orgId, '--id', id);
    expect(tested.stdout).toMatch(/^whd_\w+\n$/);
    const log = await cli('deliveries', '--org', orgId, '--id', id);
    expect(log.stdout).toMatch(
      new RegExp(`^${tested.stdout.trim()}\twebhook\\.test\tpending\t0\t-\t\\S+\\n$`),
    );

    const rotated = await cli('rotate-secret', '--org', orgId, '--id', id);
    expect(rotated.stdout).toMatch(/^whsec_[A-Za-z0-9+/]{43}=\n$/);
    expect(rotated.stdout.trim()).not.toBe(secret);
    const after = await bridge.request('GET', `${base}/${id}`, { key });
    expect(after.body.data.previousSecretExpiresAt).not.toBeNull();

    const deleted = await cli('delete', '--org', orgId, '--id', id);
    expect(deleted.stdout).toBe(`deleted ${id}\n`);
    expect((await bridge.request('GET', `${base}/${id}`, { key })).status).toBe(404);
  });

  it('refuses bad options with the API rules (exit 2, nothing on stdout)', async () => {
    const cases: [string[], string][] = [
      [['create', '--org', orgId, '--url', 'ftp://x', '--events', 'member.added'], '--url: '],
      [
        ['create', '--org', orgId, '--url', 'https://x.example.com', '--events', 'member.eaten'],
        '--events: ',
      ],
      [['create', '--org', orgId, '--url', 'https://x.example.com'], '--events: '],
      [
        [
          'create',
          '--org',
          'org_nope',
          '--url',
          'https://x.example.com',
          '--events',
          'member.added',
        ],
        'no organization with id org_nope',
      ],
      [
        ['delete', '--org', orgId, '--id', 'whe_nope'],
        `no webhook endpoint with id whe_nope in ${orgId}`,
      ],
      [
        ['update', '--org', orgId, '--id', 'whe_nope', '--enable', '--disable'],
        '--enable and --disable together',
      ],
    ];
    for (const [args, message] of cases) {
      const res = await cli(...args);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stdout).toBe('');
      expect(res.stderr).toContain(message);
    }
  });
});
