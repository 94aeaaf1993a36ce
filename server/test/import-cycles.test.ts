import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// madge ships no types: the part of its API used here.
interface MadgeResult {
  obj(): Record<string, string[]>;
  circular(): string[][];
}
type Madge = (
  paths: string | string[],
  config: { baseDir: string; fileExtensions: string[]; tsConfig?: string },
) => Promise<MadgeResult>;
const madge = createRequire(import.meta.url)('madge') as Madge;

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SOURCES = [
  'server/src',
  ...readdirSync(join(ROOT, 'packages')).map((name) => `packages/${name}/src`),
];
// Type-only imports count too: a cycle of types still ties the modules' meanings together.
const CONFIG = {
  baseDir: ROOT,
  fileExtensions: ['ts', 'tsx'],
  tsConfig: join(ROOT, 'tsconfig.json'),
};

describe('import cycles', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'bk-cycles-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('finds none in server/src and packages/*/src', async () => {
    const result = await madge(
      SOURCES.map((dir) => join(ROOT, dir)),
      CONFIG,
    );
    // The graph holds the whole product (a wrong path would find no cycle in nothing).
    const files = Object.keys(result.obj());
    expect(files).toContain('server/src/deps.ts');
    expect(files).toContain('packages/react/src/embed/embed-session.ts');
    expect(files.length).toBeGreaterThan(250);
    expect(result.circular()).toEqual([]);
  });

  it('reports a cycle, type-only imports included, with this configuration', async () => {
    writeFileSync(join(scratch, 'a.ts'), "import type { B } from './b';\nexport type A = B[];\n");
    writeFileSync(join(scratch, 'b.ts'), "import { a } from './a';\nexport type B = typeof a;\n");
    const result = await madge(scratch, { ...CONFIG, baseDir: scratch });
    expect(result.circular()).toEqual([['a.ts', 'b.ts']]);
  });
});
