#!/usr/bin/env node
// `bridge …` runs the built CLI, server/dist/cli.js: plain node, no TypeScript at run time. In a
// checkout it first asks npm start's build cache, which rebuilds the server bundles only when
// their sources changed, so `npx bridge` works right after `npm install` and never runs stale code.
import fs from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
const buildCache = new URL('../../scripts/build-cache.mjs', import.meta.url);

function fail(message) {
  process.stderr.write(`bridge: ${message}\n`);
  process.exit(1);
}

// Without the repository's build script (a copy of the built files only), run what was built.
if (fs.existsSync(buildCache)) {
  const { ensureBuilt } = await import(buildCache.href);
  await ensureBuilt('server', {
    onBuild: () => process.stderr.write('bridge: building server/dist (its sources changed)…\n'),
  }).catch((err) =>
    fail(`cannot build server/dist/cli.js: ${err.message}\nRun npm install, then npm run build.`),
  );
} else if (!fs.existsSync(cli)) {
  fail('server/dist/cli.js is missing: run npm run build where the repository is checked out.');
}
const { main } = await import(cli.href);
await main();
