import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { type Run, run } from './host-app';

/** `tarball` unpacked into `dir` (npm's tarballs hold one `package/` folder); returns it. */
export async function unpack(tarball: string, dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const result = await run('tar', ['-xzf', tarball, '-C', dir], dir);
  if (result.code !== 0) throw new Error(`tar failed:\n${result.output}`);
  return path.join(dir, 'package');
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? filesUnder(file) : [file];
  });
}

// Static `import … from './x'`, `export … from './x'`, bare `import './x'`, and `import('./x')`.
const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])(\.{1,2}\/[^"']+)\1/g;

/**
 * Every relative module a JavaScript file of the unpacked package imports and the package
 * lacks, as `file -> specifier`: what a bundler that follows every import (Turbopack, webpack)
 * stops on with "Module not found", though a tree-shaking one may never look.
 */
export function missingRelativeImports(packageDir: string): string[] {
  const missing: string[] = [];
  for (const file of filesUnder(packageDir).filter((f) => /\.[cm]?js$/.test(f))) {
    for (const match of readFileSync(file, 'utf8').matchAll(RELATIVE_IMPORT)) {
      const specifier = match[2] ?? '';
      const target = path.resolve(path.dirname(file), specifier);
      if (!existsSync(target) || !statSync(target).isFile()) {
        missing.push(`${path.relative(packageDir, file)} -> ${specifier}`);
      }
    }
  }
  return missing;
}

const bin = (root: string, name: string) => path.join(root, 'node_modules/.bin', name);

/** publint on the tarball, warnings counted as errors. */
export const publint = (root: string, tarball: string): Promise<Run> =>
  run(bin(root, 'publint'), ['run', tarball, '--strict'], root);

/**
 * Are the Types Wrong on the tarball, for ESM-only packages (a `require` of them is not
 * supported). The kit's `./styles.css` export is a stylesheet, not a module with types.
 */
export const attw = (root: string, tarball: string): Promise<Run> =>
  run(
    bin(root, 'attw'),
    [
      tarball,
      '--profile',
      'esm-only',
      '--exclude-entrypoints',
      './styles.css',
      '--format',
      'ascii',
    ],
    root,
  );
