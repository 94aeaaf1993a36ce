import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_BUNDLE } from '../../server/build.mjs';
import { freePort } from '../support/free-port';
import { waitFor } from '../support/wait';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const tmp = mkdtempSync(path.join(tmpdir(), 'bk-embed-build-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** `scripts/start.mjs` (what `npm start` runs) typed in `cwd`; resolves once /healthz is 200. */
async function npmStart(cwd: string, env: Record<string, string>) {
  const port = await freePort();
  const { NODE_ENV: _shell, INIT_CWD: _npm, ...inherited } = process.env;
  const child = spawn(process.execPath, [path.join(ROOT, 'scripts/start.mjs')], {
    cwd,
    env: { ...inherited, PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  for (const stream of [child.stdout, child.stderr]) {
    stream.on('data', (chunk) => {
      out += String(chunk);
    });
  }
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let running = true;
  const stop = async () => {
    running = false;
    child.kill('SIGTERM');
    await exited;
  };
  const died = exited.then((code) => {
    if (running) throw new Error(`npm start exited (${code}) before /healthz answered:\n${out}`);
  });
  const healthy = waitFor(
    async () => running && (await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200,
    { timeoutMs: 120_000, what: '/healthz after npm start' },
  );
  healthy.catch(() => undefined);
  try {
    await Promise.race([healthy, died]);
  } catch (error) {
    await stop();
    throw error;
  }
  return { output: () => out, stop };
}

describe('what npm start builds', () => {
  it('builds the same production full-embed bundle whatever NODE_ENV the shell has', async () => {
    const bundles: Record<string, string> = {};
    for (const env of ['production', 'development', 'test']) {
      const outDir = path.join(tmp, env);
      await run('npx', ['vite', 'build', '-c', 'vite.embed.config.ts', '--outDir', outDir], {
        cwd: path.join(ROOT, 'packages/react'),
        env: { ...process.env, NODE_ENV: env },
      });
      bundles[env] = readFileSync(path.join(outDir, 'embed.js'), 'utf8');
    }
    // React's production build replaces its messages with links to decode them.
    expect(bundles.production).toContain('Minified React error');
    // Byte for byte: no development build of React, and no package's `development` export.
    expect(bundles.development).toBe(bundles.production);
    expect(bundles.test).toBe(bundles.production);
    // Three builds of the page, while other files run beside this one: more than the default 30 s.
  }, 180_000);

  it.each([
    ['unset', undefined],
    ['development', 'development'],
  ])('leaves NODE_ENV as it was (%s) in the process that built the embed page', async (_, env) => {
    // `npm start` builds in its own process and then starts the bridge from it, with its env.
    const script = `
      import { TARGETS } from ${JSON.stringify(path.join(ROOT, 'scripts/build-cache.mjs'))};
      await TARGETS.embed.build();
      console.log(JSON.stringify({ nodeEnv: process.env.NODE_ENV ?? null }));`;
    const { NODE_ENV: _shell, ...rest } = process.env;
    const out = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: ROOT,
      env: env === undefined ? rest : { ...rest, NODE_ENV: env },
    });
    expect(JSON.parse(out.stdout.trim().split('\n').at(-1)!)).toEqual({ nodeEnv: env ?? null });
  });

  it('starts the bridge in development when it had to build the embed page first (a fresh clone)', async () => {
    // A stale stamp: the page is rebuilt (aside, then renamed into place) before the bridge starts.
    const embedDist = path.join(ROOT, 'packages/react/dist/embed');
    mkdirSync(embedDist, { recursive: true });
    writeFileSync(path.join(embedDist, '.inputs.sha256'), 'stale');
    const started = await npmStart(ROOT, { BRIDGE_DATA_DIR: path.join(tmp, 'fresh-data') });
    try {
      // Only a development bridge makes the demo organization and prints its key.
      expect(started.output()).toContain('Bridgekit demo ready');
    } finally {
      await started.stop();
    }
  }, 180_000);

  it('keeps a relative BRIDGE_DATA_DIR relative to where it was typed, though the bridge runs in server/', async () => {
    const here = mkdtempSync(path.join(tmp, 'typed-here-'));
    const started = await npmStart(here, { BRIDGE_DATA_DIR: 'relative-data' });
    try {
      expect(existsSync(path.join(here, 'relative-data', 'bridge.db'))).toBe(true);
      expect(existsSync(path.join(ROOT, 'server', 'relative-data'))).toBe(false);
    } finally {
      await started.stop();
    }
  }, 180_000);

  it('rebuilds nothing when no input changed since the last build', async () => {
    const cache = path.join(ROOT, 'scripts/build-cache.mjs');
    await run(process.execPath, [cache, 'server', 'embed'], { cwd: ROOT });
    const again = await run(process.execPath, [cache, 'server', 'embed'], { cwd: ROOT });
    expect(again.stdout.trim().split('\n')).toEqual([
      'server: unchanged, not rebuilt',
      'embed: unchanged, not rebuilt',
    ]);
  });

  it('npm run build (what a deployment runs) covers the embed page as well as the server', async () => {
    await run('npm', ['run', '--silent', 'build'], { cwd: ROOT });
    const built = await run('npm', ['run', '--silent', 'build'], { cwd: ROOT });
    expect(built.stdout.trim().split('\n')).toEqual([
      'embed: unchanged, not rebuilt',
      'server: unchanged, not rebuilt',
    ]);
  });

  it('builds the CLI with the server: plain node runs server/dist/cli.js', async () => {
    await run(process.execPath, [path.join(ROOT, 'scripts/build-cache.mjs'), 'server'], {
      cwd: ROOT,
    });
    const help = await run(process.execPath, [CLI_BUNDLE, '--help'], { cwd: ROOT });
    expect(help.stdout).toMatch(/^Usage: bridge <command>\n/);
    expect(help.stdout).toContain('keys list --email E');
  });
});
