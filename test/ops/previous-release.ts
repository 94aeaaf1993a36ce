import { execFileSync, execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PACKAGES = ['contract', 'client', 'node', 'react'];

/** A previous release's server bundle, built from git into a temp dir. */
export interface PreviousRelease {
  dir: string;
  bundle: string;
  remove(): void;
}

/**
 * Builds the server of `commit` as that release shipped it: its tree from git, this checkout's
 * installed dependencies (linked), and its own workspace packages in place of ours.
 */
export async function buildPreviousRelease(commit: string): Promise<PreviousRelease> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-previous-'));
  execSync(`git archive ${commit} | tar -x -C ${JSON.stringify(dir)}`, { cwd: ROOT });
  const modules = path.join(dir, 'node_modules');
  fs.mkdirSync(path.join(modules, '@bridgekit'), { recursive: true });
  for (const entry of fs.readdirSync(path.join(ROOT, 'node_modules'))) {
    if (entry === '@bridgekit') continue;
    fs.symlinkSync(path.join(ROOT, 'node_modules', entry), path.join(modules, entry));
  }
  for (const name of PACKAGES) {
    fs.symlinkSync(path.join(dir, 'packages', name), path.join(modules, '@bridgekit', name));
  }
  fs.symlinkSync(path.join(dir, 'server'), path.join(modules, '@bridgekit', 'server'));
  execFileSync(
    process.execPath,
    ['-e', "import('./server/build.mjs').then((m) => m.buildServer())"],
    { cwd: dir, stdio: 'pipe' },
  );
  return {
    dir,
    bundle: path.join(dir, 'server/dist/main.js'),
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
