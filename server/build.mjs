// Bundles the bridge into server/dist/main.js so production runs plain node: faster start, and
// none of the TypeScript loader's memory. Native and lazily loaded modules stay external.
// `npm start`, the benchmarks and the process tests all build through buildServer().
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
export const SERVER_BUNDLE = path.join(here, 'dist/main.js');

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

/** Builds the bundle; files are written under a temporary name and renamed, so a process
 * starting at the same moment never reads a half-written bundle. */
export async function buildServer() {
  const result = await build({
    entryPoints: [path.join(here, 'src/main.ts')],
    outfile: SERVER_BUNDLE,
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
  fs.mkdirSync(path.dirname(SERVER_BUNDLE), { recursive: true });
  for (const file of result.outputFiles) {
    const tmp = `${file.path}.${process.pid}.${randomBytes(4).toString('hex')}`;
    fs.writeFileSync(tmp, file.contents);
    fs.renameSync(tmp, file.path);
  }
  return SERVER_BUNDLE;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await buildServer();
