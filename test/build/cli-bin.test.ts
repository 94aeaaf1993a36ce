import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inputsHash, TARGETS } from '../../scripts/build-cache.mjs';
import { serveNodeFlags } from '../../server/build.mjs';
import { runBridgeCli } from '../support/bridge-cli';
import { freePort } from '../support/free-port';
import { waitFor } from '../support/wait';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SECRETS = {
  BRIDGE_SECRET_KEY: randomBytes(32).toString('base64'),
  BRIDGE_SESSION_SECRET: randomBytes(32).toString('base64url'),
};
const BUILDING = 'bridge: building server/dist (its sources changed)…\n';

// A checkout without server/dist, as a fresh clone is after `npm install`: what the server
// bundles are built from, the bin and the build cache, with this repository's node_modules.
const checkout = realpathSync(mkdtempSync(path.join(tmpdir(), 'bk-checkout-')));
const bin = path.join(checkout, 'server/bin/bridge.js');
const storeLine = `bridge: store SQLite ${path.join(checkout, 'server/.data/bridge.db')}\n`;
const cli = (args: string[], cwd: string) =>
  runBridgeCli(args, SECRETS, 120_000, { bin, cwd: path.join(checkout, cwd) });

beforeAll(() => {
  for (const file of [...TARGETS.server.inputs, 'server/bin', 'scripts/build-cache.mjs']) {
    cpSync(path.join(ROOT, file), path.join(checkout, file), { recursive: true });
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(checkout, 'node_modules'));
});
afterAll(() => rmSync(checkout, { recursive: true, force: true }));

describe('the bridge bin in a fresh checkout', { timeout: 180_000 }, () => {
  it('builds the server bundles on its first run, then runs the command', async () => {
    const res = await cli(['migrate'], '.');
    expect(res.stderr).toBe(BUILDING + storeLine);
    expect(res.code).toBe(0);
    // A fresh store: every migration applied, in order, then the summary.
    expect(res.stdout).toMatch(
      /^applied 0001_initial\n(applied \d{4}_\w+\n)+\d+ change\(s\) applied; the store is up to date\n$/,
    );
    for (const file of TARGETS.server.outputs)
      expect(existsSync(path.join(checkout, file))).toBe(true);
    // The same stamp `npm start` checks: it will not build again.
    expect(readFileSync(path.join(checkout, TARGETS.server.stamp), 'utf8')).toBe(
      inputsHash('server'),
    );
  });

  it('builds nothing when no source changed, from any directory', async () => {
    for (const cwd of ['.', 'server', 'packages/contract/src']) {
      const res = await cli(['migrate'], cwd);
      expect(res.stderr).toBe(storeLine);
      expect(res.code).toBe(0);
      expect(res.stdout).toBe('nothing to apply; the store is up to date\n');
    }
  });

  it('shares the store of the bridge npm start runs: the demo organization is there', async () => {
    // npm start runs the bridge in server/; the CLI runs from the root (the issue's "no
    // organization"): both take the default data dir, server/.data, and no ./.data appears.
    const port = await freePort();
    const child: ChildProcess = spawn(
      process.execPath,
      [...serveNodeFlags(), path.join(checkout, 'server/dist/main.js')],
      {
        cwd: path.join(checkout, 'server'),
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          PORT: String(port),
          BRIDGE_BACKGROUND_JOBS: 'false',
          LOG_LEVEL: 'warn',
          ...SECRETS,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout?.on('data', (chunk) => {
      out += String(chunk);
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      // The key the first start prints (the server has seeded the demo by then).
      const demoKey = await waitFor(
        async () => {
          const key = /\n {2}(bk_key_\w+)\n/.exec(out)?.[1];
          if (!key) throw new Error('not printed yet');
          return key;
        },
        { timeoutMs: 60_000, what: 'the demo key on the bridge’s stdout' },
      );
      const demoOrgId = await waitFor(
        async () => {
          const res = await fetch(`http://127.0.0.1:${port}/api/public/organizations`, {
            headers: { authorization: `Bearer ${demoKey}` },
          });
          const body = (await res.json()) as { data: { id: string; name: string }[] };
          const demo = body.data.find((o) => o.name === 'Demo Organization');
          if (!demo) throw new Error(`no demo organization: ${res.status}`);
          return demo.id;
        },
        { timeoutMs: 30_000, what: 'the demo organization' },
      );

      const keys = await cli(['keys', 'list', '--email', 'demo@bridgekit.dev'], '.');
      expect(keys.stderr).toBe(storeLine);
      expect(keys.stdout).toContain(`bk_key_…${demoKey.slice(-4)}\tactive`);
      const added = await cli(
        [
          'members',
          'add',
          '--org',
          demoOrgId,
          '--email',
          'teammate@example.com',
          '--role',
          'MEMBER',
        ],
        '.',
      );
      expect(added.stderr).toBe(storeLine);
      expect(added.code).toBe(0);
      expect(added.stdout).toMatch(/^mem_\w+\tteammate@example.com\tMEMBER\n$/);
      const removed = await cli(
        ['members', 'remove', '--org', demoOrgId, '--email', 'teammate@example.com'],
        'server',
      );
      expect(removed.code).toBe(0);
      expect(existsSync(path.join(checkout, '.data'))).toBe(false);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('rebuilds when a source changed', async () => {
    appendFileSync(path.join(checkout, 'server/src/cli.ts'), '\n// changed\n');
    const res = await cli(['migrate'], 'server');
    expect(res.stderr).toBe(BUILDING + storeLine);
    expect(res.code).toBe(0);
    expect(readFileSync(path.join(checkout, TARGETS.server.stamp), 'utf8')).not.toBe(
      inputsHash('server'),
    );
  });
});
