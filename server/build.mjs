// Bundles the bridge (server/dist/main.js) and the `bridge` CLI (server/dist/cli.js) so both run
// plain node: faster start, and none of the TypeScript loader's memory. Native and lazily loaded
// modules stay external. Scalar's prebuilt browser bundle is copied beside them, so the /docs
// renderer is a build-time dependency only. `npm start`, `npx bridge`, the benchmarks and the
// process tests all build through buildServer().
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, 'dist');
export const SERVER_BUNDLE = path.join(dist, 'main.js');
export const CLI_BUNDLE = path.join(dist, 'cli.js');
export const SCALAR_BUNDLE = path.join(dist, 'scalar.js');

/**
 * The node flags of `npm run serve -w server` (what `npm start` runs), read from its script so
 * that benchmarks and process tests start the bridge exactly as users do.
 */
export function serveNodeFlags() {
  const { scripts } = JSON.parse(fs.readFileSync(path.join(here, 'package.json'), 'utf8'));
  const words = scripts.serve.split(/\s+/);
  if (words[0] !== 'node' || words.at(-1) !== 'dist/main.js') {
    throw new Error(
      `server/package.json "serve" must be "node [flags] dist/main.js": ${scripts.serve}`,
    );
  }
  return words.slice(1, -1);
}

/** Writes `file` under a temporary name (`write(tmp)`), then renames it into place. */
function replaceAtomically(file, write) {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  write(tmp);
  fs.renameSync(tmp, file);
}

/** Scalar's self-contained browser bundle, as npm installed it (a devDependency). */
function scalarStandalone() {
  const entry = createRequire(import.meta.url).resolve('@scalar/api-reference');
  return path.join(path.dirname(entry), 'browser', 'standalone.js');
}

/**
 * Builds both bundles and copies the reference renderer; files are written under a temporary
 * name and renamed, so a process starting at the same moment never reads a half-written file.
 */
export async function buildServer() {
  const { build } = await import('esbuild');
  const result = await build({
    // Two self-contained bundles (no shared chunks): each starts by reading one file.
    entryPoints: { main: path.join(here, 'src/main.ts'), cli: path.join(here, 'src/cli.ts') },
    outdir: dist,
    bundle: true,
    platform: 'node',
    // Our packages from src/ (their exports' `bridgekit-source` condition), no build needed.
    conditions: ['bridgekit-source'],
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    // Whitespace and comments out, names kept (logs and stack traces read the same; the source
    // map maps back): a smaller, all-ASCII bundle, which V8 keeps as a one-byte string.
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    charset: 'ascii',
    external: [
      'better-sqlite3',
      'pg',
      'pg-native',
      'mysql2',
      'ssh2',
      'cpu-features',
      'ioredis',
      'tldts',
      'pg-boss',
    ],
    // Bundled CommonJS dependencies call require(); give them one.
    banner: {
      js: "import { createRequire as __bkRequire } from 'node:module'; const require = __bkRequire(import.meta.url);",
    },
    logLevel: 'warning',
    write: false,
  });
  fs.mkdirSync(dist, { recursive: true });
  for (const file of result.outputFiles) {
    replaceAtomically(file.path, (tmp) => fs.writeFileSync(tmp, file.contents));
  }
  replaceAtomically(SCALAR_BUNDLE, (tmp) => fs.copyFileSync(scalarStandalone(), tmp));
  return SERVER_BUNDLE;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await buildServer();
