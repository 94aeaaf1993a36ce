import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Member } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPgDatabase,
  STORE_ENGINES,
  startBridge,
  type TestBridge,
} from '../../../test/support/bridge';
import { type CliResult, runBridgeCli } from '../../../test/support/bridge-cli';
import { createApiKeyForEmail } from '../../src/domain/api-key-admin';
import { openStore } from '../../src/store/db';
import { claimsFor, createOrg, kitSignIn, signHs256 } from '../sso/support';

const SECRETS = {
  BRIDGE_SECRET_KEY: randomBytes(32).toString('base64'),
  BRIDGE_SESSION_SECRET: randomBytes(32).toString('base64url'),
};

/** What the CLI writes on stderr before opening the store, and nothing else when all is well. */
function storeLine(dataDir: string, databaseUrl?: string): string {
  if (!databaseUrl) return `bridge: store SQLite ${path.join(dataDir, 'bridge.db')}\n`;
  const url = new URL(databaseUrl);
  return `bridge: store PostgreSQL ${url.hostname}:${url.port}${url.pathname}\n`;
}

describe.each(STORE_ENGINES)('bridge CLI on %s', (engine) => {
  let bridge: TestBridge;
  let env: Record<string, string | undefined>;
  let created: CliResult;
  const email = `cli-${engine}@example.com`;

  beforeAll(async () => {
    bridge = await startBridge(engine, SECRETS);
    env = {
      ...SECRETS,
      BRIDGE_DATA_DIR: bridge.dataDir,
      ...(bridge.databaseUrl ? { DATABASE_URL: bridge.databaseUrl } : {}),
    };
    created = await runBridgeCli(['keys', 'create', '--email', email.toUpperCase()], env);
  });
  afterAll(() => bridge.stop());

  it('keys create exits 0 and prints only the key on stdout', () => {
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^bk_key_[A-Za-z0-9]{32}\n$/);
  });

  it('keys create writes only which store it opened to stderr when all is well', () => {
    expect(created.stderr).toBe(storeLine(bridge.dataDir, bridge.databaseUrl));
  });

  it.runIf(engine !== 'sqlite')(
    'names a PostgreSQL store by host, port and database, never by its user or password',
    async () => {
      const url = new URL(bridge.databaseUrl as string);
      url.username = 'postgres';
      url.password = 'pw-never-shown-7f3a';
      const res = await runBridgeCli(['keys', 'list', '--email', email], {
        ...env,
        DATABASE_URL: url.toString(),
      });
      expect(res.code).toBe(0);
      expect(res.stderr).toBe(storeLine(bridge.dataDir, bridge.databaseUrl));
      expect(res.stderr).not.toContain('pw-never-shown');
      expect(res.stderr).not.toContain('postgres@');
    },
  );

  it('keys create makes a key that works against a bridge on the same store', async () => {
    const res = await bridge.request('GET', '/api/public/organizations', {
      key: created.stdout.trim(),
    });
    expect(res.status).toBe(200);
  });

  it('keys create stores the email lowercased', async () => {
    const row = await bridge.deps.store.db
      .selectFrom('users')
      .select('email')
      .where('email', '=', email)
      .executeTakeFirst();
    expect(row?.email).toBe(email);
  });

  // Independent CLI runs; concurrent to keep the wall time down.
  describe.concurrent('commands', { timeout: 60_000 }, () => {
    it('keys list shows the hint and never the key', async ({ expect }) => {
      const key = created.stdout.trim();
      const res = await runBridgeCli(['keys', 'list', '--email', email], env);
      expect(res.code).toBe(0);
      expect(res.stdout).toContain(`bk_key_…${key.slice(-4)}`);
      expect(res.stdout).toContain('active');
      expect(res.stdout).not.toContain(key.slice(7));
    });

    it('keys revoke makes the key answer 401', async ({ expect }) => {
      const { id, key } = await createApiKeyForEmail(
        bridge.deps.store.db,
        { email: `revoke-${engine}@example.com` },
        new Date(),
      );
      expect((await bridge.request('GET', '/api/public/organizations', { key })).status).toBe(200);
      const res = await runBridgeCli(['keys', 'revoke', id], env);
      expect(res.code).toBe(0);
      expect(res.stdout).toBe(`revoked ${id}\n`);
      expect((await bridge.request('GET', '/api/public/organizations', { key })).status).toBe(401);
    });

    it('members add adds the member the API then returns', async ({ expect }) => {
      const admin = await bridge.newUser();
      const org = await bridge.request('POST', '/api/public/organizations', {
        key: admin.key,
        body: { name: 'CLI Org' },
      });
      const orgId = org.body.data.id;
      const res = await runBridgeCli(
        ['members', 'add', '--org', orgId, '--email', 'Added.By@CLI.example', '--role', 'MEMBER'],
        env,
      );
      expect(res.code).toBe(0);
      const memberId = res.stdout.split('\t')[0]!;
      expect(res.stdout).toBe(`${memberId}\tadded.by@cli.example\tMEMBER\n`);
      const got = await bridge.request(
        'GET',
        `/api/public/organizations/${orgId}/members/${memberId}`,
        { key: admin.key },
      );
      expect(got.status).toBe(200);
      expect(Member.parse(got.body.data)).toMatchObject({
        role: 'MEMBER',
        user: { email: 'added.by@cli.example' },
      });
    });

    it('members set-role changes a role, and refuses to demote the last ADMIN', async ({
      expect,
    }) => {
      const admin = await bridge.newUser();
      const org = await createOrg(bridge, admin.key, { name: 'CLI Roles' });
      const member = `role-${engine}@example.com`;
      await bridge.request('POST', `/api/public/organizations/${org.id}/members`, {
        key: admin.key,
        body: { email: member, role: 'MEMBER' },
      });
      const promote = await runBridgeCli(
        ['members', 'set-role', '--org', org.id, '--email', member, '--role', 'ADMIN'],
        env,
      );
      expect(promote.stderr).toBe(storeLine(bridge.dataDir, bridge.databaseUrl));
      expect(promote.code).toBe(0);
      expect(promote.stdout).toMatch(new RegExp(`^mem_\\w+\\t${member}\\tADMIN\\n$`));
      const demoteBoth = async (email: string) =>
        runBridgeCli(
          ['members', 'set-role', '--org', org.id, '--email', email, '--role', 'MEMBER'],
          env,
        );
      expect((await demoteBoth(admin.email)).code).toBe(0);
      const last = await demoteBoth(member);
      expect(last.code).toBe(1);
      expect(last.stdout).toBe('');
      expect(last.stderr).toContain("is the last ADMIN of the organization and can't be demoted");
      const roles = await bridge.request('GET', `/api/public/organizations/${org.id}/members`, {
        key: admin.key,
      });
      // The admin demoted itself: it reads as a MEMBER now, and the member is the one ADMIN.
      expect(roles.body.data.map((m: Member) => [m.user.email, m.role]).sort()).toEqual(
        [
          [admin.email, 'MEMBER'],
          [member, 'ADMIN'],
        ].sort(),
      );
    });

    it('members remove removes a member, keeps the user, and refuses the last ADMIN', async ({
      expect,
    }) => {
      const admin = await bridge.newUser();
      const leaving = await bridge.newUser();
      const org = await createOrg(bridge, admin.key, { name: 'CLI Remove' });
      await bridge.request('POST', `/api/public/organizations/${org.id}/members`, {
        key: admin.key,
        body: { email: leaving.email, role: 'MEMBER' },
      });
      const res = await runBridgeCli(
        ['members', 'remove', '--org', org.id, '--email', leaving.email],
        env,
      );
      expect(res.stderr).toBe(storeLine(bridge.dataDir, bridge.databaseUrl));
      expect(res.code).toBe(0);
      expect(res.stdout).toMatch(new RegExp(`^removed mem_\\w+\\t${leaving.email}\\n$`));
      const access = await bridge.request('GET', `/api/public/organizations/${org.id}`, {
        key: leaving.key,
      });
      expect(access.status).toBe(404);
      expect(
        (await bridge.request('GET', '/api/public/organizations', { key: leaving.key })).status,
      ).toBe(200);
      const again = await runBridgeCli(
        ['members', 'remove', '--org', org.id, '--email', leaving.email],
        env,
      );
      expect(again.code).toBe(2);
      expect(again.stderr).toContain(`${leaving.email} is not a member of ${org.id}`);
      const last = await runBridgeCli(
        ['members', 'remove', '--org', org.id, '--email', admin.email],
        env,
      );
      expect(last.code).toBe(1);
      expect(last.stderr).toContain("is the last ADMIN of the organization and can't be removed");
    });

    it('orgs rotate-secret prints only the new secret, and the old one stays in its grace', async ({
      expect,
    }) => {
      const admin = await bridge.newUser();
      const org = await createOrg(bridge, admin.key, { name: 'CLI Rotate' });
      const res = await runBridgeCli(['orgs', 'rotate-secret', '--org', org.id], env);
      expect(res.stderr).toBe(storeLine(bridge.dataDir, bridge.databaseUrl));
      expect(res.code).toBe(0);
      expect(res.stdout).toMatch(/^[A-Za-z0-9_-]{43}\n$/);
      const secret = res.stdout.trim();
      const read = await bridge.request(
        'GET',
        `/api/public/organizations/${org.id}?include=jwtSecret`,
        { key: admin.key },
      );
      expect(read.body.data.jwtSecret).toBe(secret);
      expect(read.body.data.previousJwtSecretExpiresAt).not.toBeNull();
      for (const s of [secret, org.jwtSecret]) {
        const jwt = await signHs256(claimsFor(org.id), s);
        expect((await bridge.request('POST', '/api/sso/jwt', { body: { jwt } })).status).toBe(200);
      }
    });

    it('orgs rotate-secret --end-sessions also ends the sessions signed in until then', async ({
      expect,
    }) => {
      const admin = await bridge.newUser();
      const org = await createOrg(bridge, admin.key, { name: 'CLI Rotate Ending' });
      const kept = await createOrg(bridge, admin.key, { name: 'CLI Rotate Other' });
      const [before, other] = await Promise.all([kitSignIn(bridge, org), kitSignIn(bridge, kept)]);
      const status = async (token: string) =>
        (await bridge.request('GET', '/api/sso/session', { key: token })).status;
      expect(await status(before.sessionToken)).toBe(200);
      const res = await runBridgeCli(
        ['orgs', 'rotate-secret', '--org', org.id, '--end-sessions'],
        env,
      );
      expect(res.code).toBe(0);
      expect(res.stdout).toMatch(/^[A-Za-z0-9_-]{43}\n$/);
      expect(await status(before.sessionToken)).toBe(401);
      expect(await status(other.sessionToken)).toBe(200);
    });

    it('orgs rotate-secret fails on an unknown organization', async ({ expect }) => {
      const res = await runBridgeCli(['orgs', 'rotate-secret', '--org', 'org_nope'], env);
      expect(res.code).toBe(2);
      expect(res.stdout).toBe('');
      expect(res.stderr).toContain('no organization with id org_nope');
    });

    it('migrate applies everything to a fresh store and says what, then finds nothing to do', async ({
      expect,
    }) => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-cli-'));
      const database = engine === 'sqlite' ? undefined : await createPgDatabase(engine);
      const migrateEnv = {
        ...SECRETS,
        BRIDGE_DATA_DIR: dataDir,
        ...(database ? { DATABASE_URL: database.url } : {}),
      };
      try {
        const res = await runBridgeCli(['migrate'], migrateEnv);
        expect(res.code).toBe(0);
        const lines = res.stdout.trimEnd().split('\n');
        expect(lines.slice(0, 2)).toEqual(['applied 0001_initial', 'applied 0002_rate_limits']);
        expect(lines).toContain('applied 0015_key_checks');
        // On PostgreSQL the job engine's schema and queues come with the store's migrations.
        const jobEngine = [
          'applied pg-boss schema',
          'applied queue bridgekit-health',
          'applied queue bridgekit-sync',
          'applied queue bridgekit-health-sweep',
          'applied queue bridgekit-sync-sweep',
        ];
        if (engine === 'sqlite') expect(lines).not.toContain(jobEngine[0]);
        else expect(lines).toEqual(expect.arrayContaining(jobEngine));
        expect(lines.at(-1)).toBe(`${lines.length - 1} change(s) applied; the store is up to date`);
        const again = await runBridgeCli(['migrate'], migrateEnv);
        expect(again.stdout).toBe('nothing to apply; the store is up to date\n');
        const store = openStore({ dataDir, databaseUrl: database?.url });
        try {
          expect(await store.migrate()).toEqual([]);
          const users = await store.db.selectFrom('users').select('id').execute();
          expect(users).toEqual([]);
        } finally {
          await store.close();
        }
      } finally {
        await database?.drop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
});

describe('the store the CLI opens, wherever it runs', { timeout: 60_000 }, () => {
  const ROOT = path.resolve(import.meta.dirname, '../../..');
  let bridge: TestBridge;
  let env: Record<string, string>;

  beforeAll(async () => {
    bridge = await startBridge('sqlite', SECRETS);
    env = { ...SECRETS, BRIDGE_DATA_DIR: bridge.dataDir };
  });
  afterAll(() => bridge.stop());

  it('sees the same keys and organizations from the repository root and from server/', async () => {
    const admin = await bridge.newUser();
    const org = await createOrg(bridge, admin.key, { name: 'Seen From Anywhere' });
    const fromRoot = { cwd: ROOT };
    const fromServer = { cwd: path.join(ROOT, 'server') };
    const line = storeLine(bridge.dataDir);

    const created = await runBridgeCli(
      ['keys', 'create', '--email', 'anywhere@example.com'],
      env,
      undefined,
      fromRoot,
    );
    expect(created.stderr).toBe(line);
    expect(created.code).toBe(0);
    const listed = await runBridgeCli(
      ['keys', 'list', '--email', 'anywhere@example.com'],
      env,
      undefined,
      fromServer,
    );
    expect(listed.stderr).toBe(line);
    expect(listed.stdout).toContain(`bk_key_…${created.stdout.trim().slice(-4)}\tactive`);

    // The organization the API created is there for both: never "no organization with id".
    const added = await runBridgeCli(
      ['members', 'add', '--org', org.id, '--email', 'anywhere@example.com', '--role', 'MEMBER'],
      env,
      undefined,
      fromServer,
    );
    expect(added.stderr).toBe(line);
    expect(added.code).toBe(0);
    const promoted = await runBridgeCli(
      [
        'members',
        'set-role',
        '--org',
        org.id,
        '--email',
        'anywhere@example.com',
        '--role',
        'ADMIN',
      ],
      env,
      undefined,
      fromRoot,
    );
    expect(promoted.stderr).toBe(line);
    expect(promoted.code).toBe(0);
    const members = await bridge.request('GET', `/api/public/organizations/${org.id}/members`, {
      key: admin.key,
    });
    expect(members.body.data.map((m: Member) => [m.user.email, m.role])).toContainEqual([
      'anywhere@example.com',
      'ADMIN',
    ]);
  });

  it('resolves a relative BRIDGE_DATA_DIR against the directory it runs in, and says so', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-cli-rel-'));
    try {
      const res = await runBridgeCli(
        ['migrate'],
        { ...SECRETS, BRIDGE_DATA_DIR: 'rel-data' },
        undefined,
        {
          cwd: dir,
        },
      );
      expect(res.code).toBe(0);
      expect(res.stderr).toBe(storeLine(path.join(fs.realpathSync(dir), 'rel-data')));
      expect(fs.existsSync(path.join(dir, 'rel-data', 'bridge.db'))).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.concurrent('bridge CLI bad arguments', { timeout: 60_000 }, () => {
  let env: Record<string, string>;
  let dataDir: string;

  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-cli-args-'));
    env = { ...SECRETS, BRIDGE_DATA_DIR: dataDir };
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('fails without a command', async ({ expect }) => {
    const res = await runBridgeCli([], env);
    expect(res.code).not.toBe(0);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('no command given');
    expect(res.stderr).toContain('Usage: bridge');
  });

  it('fails on an unknown command', async ({ expect }) => {
    const res = await runBridgeCli(['frobnicate'], env);
    expect(res.code).not.toBe(0);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('unknown command: frobnicate');
  });

  it('fails on keys create without --email', async ({ expect }) => {
    const res = await runBridgeCli(['keys', 'create'], env);
    expect(res.code).not.toBe(0);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('--email is required');
  });

  it('fails on a bad email', async ({ expect }) => {
    const res = await runBridgeCli(['keys', 'create', '--email', 'not-an-email'], env);
    expect(res.code).not.toBe(0);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('"not-an-email" is not an email address');
  });

  it('fails on a bad --role', async ({ expect }) => {
    const res = await runBridgeCli(
      ['members', 'add', '--org', 'org_x', '--email', 'a@example.com', '--role', 'OWNER'],
      env,
    );
    expect(res.code).not.toBe(0);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('--role must be ADMIN or MEMBER');
  });

  it.each([
    [['members', 'set-role', '--email', 'a@example.com', '--role', 'ADMIN'], '--org is required'],
    [['members', 'remove', '--org', 'org_x'], '--email is required'],
    [['orgs', 'rotate-secret'], '--org is required'],
    [
      ['members', 'set-role', '--org', 'org_x', '--email', 'a@example.com', '--role', 'OWNER'],
      '--role must be ADMIN or MEMBER',
    ],
  ])('fails on %j with a usage message', async (args, message) => {
    const res = await runBridgeCli(args, env);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain(message);
    expect(res.stderr).toContain('Usage: bridge');
  });

  it('fails on an unknown option', async ({ expect }) => {
    const res = await runBridgeCli(['keys', 'create', '--email', 'a@example.com', '--bogus'], env);
    expect(res.code).not.toBe(0);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/unknown option '--bogus'/i);
  });
});
