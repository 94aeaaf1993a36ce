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

/** Builds the bundle; files are written under a temporary name and renamed, so a process
 * starting at the same moment never reads a half-written bundle. */
export async function buildServer() {
  const result = await build({
    entryPoints: [path.join(here, 'src/main.ts')],
    outfile: SERVER_BUNDLE,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    external: ['better-sqlite3', 'pg', 'pg-native', 'ssh2', 'cpu-features', 'ioredis', 'tldts'],
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
