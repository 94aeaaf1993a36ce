import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { type Packed, packAll } from './host-app';

// Vitest global setup of the `pack` layer: the four packages are packed once per run, before its
// files start, and every file that installs them (test/pack, test/host-stacks) reads the same
// tarballs. `npm pack`'s prepack builds a package only when its inputs changed since its last
// build (scripts/build-packages.mjs), so the build `npm run size` made is the one packed.

declare module 'vitest' {
  export interface ProvidedContext {
    /** The directory holding the tarballs, and what `npm pack --json` said of each. */
    tarballs: { dir: string; packed: Packed[] };
  }
}

export default async function setup(project: TestProject) {
  const dir = mkdtempSync(path.join(tmpdir(), 'bk-tarballs-'));
  project.provide('tarballs', { dir, packed: await packAll(dir) });
  return () => rmSync(dir, { recursive: true, force: true });
}
