import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const BUILT = path.join(ROOT, 'packages/react/dist/embed');

/**
 * A private copy of the full-embed page's production build, for a bridge's `embedAssetsDir`.
 * The build is `npm start`'s (scripts/build-cache.mjs), remade only when its inputs changed, so
 * in `npm test` (whose size check builds it first) every file copies one build instead of
 * making its own. A copy, so a test that rebuilds the page in place (test/build) never swaps
 * files under a running bridge.
 */
export async function embedAssets(): Promise<string> {
  await promisify(execFile)(process.execPath, [
    path.join(ROOT, 'scripts/build-cache.mjs'),
    'embed',
  ]);
  const dir = mkdtempSync(path.join(tmpdir(), 'bk-embed-assets-'));
  // The files of the build; its input stamp stays behind.
  cpSync(BUILT, dir, {
    recursive: true,
    filter: (source) => source === BUILT || !path.basename(source).startsWith('.'),
  });
  return dir;
}
