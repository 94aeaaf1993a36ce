import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Member } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, runBridgeCli } from '../../test/support/bridge-cli';
import { createApiKeyForEmail } from '../src/domain/api-key-admin';
import { openStore } from '../src/store/db';
import { createPgDatabase, ENGINES, startBridge, type TestBridge } from './support/bridge';

const SECRETS = {
  BRIDGE_SECRET_KEY: randomBytes(32).toString('base64'),
  BRIDGE_SESSION_SECRET: randomBytes(32).toString('base64url'),
};

describe.each(ENGINES)('bridge CLI on %s', (engine) => {
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

  it('keys create writes nothing to stderr when all is well', () => {
    expect(created.stderr).toBe('');
  });

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

    it('migrate applies the migrations to a fresh store', async ({ expect }) => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-cli-'));
      const database = engine === 'postgres' ? await createPgDatabase() : undefined;
      try {
        const res = await runBridgeCli(['migrate'], {
          ...SECRETS,
          BRIDGE_DATA_DIR: dataDir,
          ...(database ? { DATABASE_URL: database.url } : {}),
        });
        expect(res.code).toBe(0);
        expect(res.stdout).toBe('migrations up to date\n');
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

  it('fails on an unknown option', async ({ expect }) => {
    const res = await runBridgeCli(['keys', 'create', '--email', 'a@example.com', '--bogus'], env);
    expect(res.code).not.toBe(0);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/unknown option '--bogus'/i);
  });
});
