import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
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

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
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
    // Parses every product source: over the default 30 s when other files run beside it.
  }, 120_000);

  it('reports a cycle, type-only imports included, with this configuration', async () => {
    writeFileSync(join(scratch, 'a.ts'), "import type { B } from './b';\nexport type A = B[];\n");
    writeFileSync(join(scratch, 'b.ts'), "import { a } from './a';\nexport type B = typeof a;\n");
    const result = await madge(scratch, { ...CONFIG, baseDir: scratch });
    expect(result.circular()).toEqual([['a.ts', 'b.ts']]);
  });
});

// Express belongs to the HTTP layer: below it, code returns what to say (a limiter's verdict)
// and http/ or routes/ say it.
const EXPRESS_IMPORT =
  /\bfrom\s+'express(?:\/[^']*)?'|\bimport\s*\(\s*'express'|require\('express'\)/;
const HTTP_LAYER = /^server\/src\/(?:http\/|routes\/|app\.ts$)/;

describe('the HTTP layer', () => {
  it('is the only part of server/src that imports Express', () => {
    const src = join(ROOT, 'server/src');
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter((file) => /\.tsx?$/.test(file))
      .map((file) => relative(ROOT, join(src, file)).replaceAll('\\', '/'));
    expect(files).toContain('server/src/rate-limit.ts');
    const importers = files.filter((file) =>
      EXPRESS_IMPORT.test(readFileSync(join(ROOT, file), 'utf8')),
    );
    expect(importers).toContain('server/src/http/auth.ts');
    expect(importers.filter((file) => !HTTP_LAYER.test(file))).toEqual([]);
  });
});
