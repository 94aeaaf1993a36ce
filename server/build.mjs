// Bundles the bridge into server/dist/main.js so production runs plain node: faster start, and
// none of the TypeScript loader's memory. Native and lazily loaded modules stay external.
import { build } from 'esbuild';

await build({
  entryPoints: [new URL('./src/main.ts', import.meta.url).pathname],
  outfile: new URL('./dist/main.js', import.meta.url).pathname,
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
});
