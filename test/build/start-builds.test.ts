import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const outDir = mkdtempSync(path.join(tmpdir(), 'bk-embed-build-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe('what npm start builds', () => {
  it('builds the full-embed bundle with React’s production build even when NODE_ENV=development', async () => {
    await run('npx', ['vite', 'build', '-c', 'vite.embed.config.ts', '--outDir', outDir], {
      cwd: path.join(ROOT, 'packages/react'),
      env: { ...process.env, NODE_ENV: 'development' },
    });
    const bundle = readFileSync(path.join(outDir, 'embed.js'), 'utf8');
    // React's production build replaces its messages with links to decode them; the
    // development build carries the messages (and is almost twice the size).
    expect(bundle).toContain('Minified React error');
  });

  it('rebuilds nothing when no input changed since the last build', async () => {
    const cache = path.join(ROOT, 'scripts/build-cache.mjs');
    await run(process.execPath, [cache, 'server', 'embed'], { cwd: ROOT });
    const again = await run(process.execPath, [cache, 'server', 'embed'], { cwd: ROOT });
    expect(again.stdout.trim().split('\n')).toEqual([
      'server: unchanged, not rebuilt',
      'embed: unchanged, not rebuilt',
    ]);
  });
});
