// Rebuilds the full-embed bundle and the server bundles (the bridge and the `bridge` CLI) only
// when their inputs changed since their last build, so `npm start` and `npx bridge` with nothing
// changed go straight to running. A build's inputs are hashed by content (paths and bytes; tests
// excluded) and the hash is written next to its outputs once the build succeeds.
// `node scripts/build-cache.mjs [embed|server…]`.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = path.resolve(import.meta.dirname, '..');
const SHARED = ['packages/contract/src', 'packages/client/src', 'package-lock.json'];

export const TARGETS = {
  embed: {
    inputs: ['packages/react/src', 'packages/react/vite.embed.config.ts', ...SHARED],
    outputs: ['packages/react/dist/embed/embed.js', 'packages/react/dist/embed/embed.css'],
    stamp: 'packages/react/dist/embed/.inputs.sha256',
    async build() {
      // Built aside, then each file renamed into place: a bridge serving the page while it
      // rebuilds (a test, a running `npm start`) never finds it missing or half written.
      const dist = path.join(ROOT, 'packages/react/dist');
      const staging = path.join(dist, `.embed-${process.pid}-${randomBytes(4).toString('hex')}`);
      // Vite sets NODE_ENV=production in this process when it is unset; `npm start` goes on to
      // start the bridge from here, which would then run as production (and refuse to start
      // without BRIDGE_SECRET_KEY). The caller's environment is left as it was.
      const nodeEnv = process.env.NODE_ENV;
      try {
        const { build } = await import('vite');
        await build({
          configFile: path.join(dist, '../vite.embed.config.ts'),
          build: { outDir: staging, emptyOutDir: true },
        });
        fs.mkdirSync(path.join(dist, 'embed'), { recursive: true });
        for (const file of fs.readdirSync(staging)) {
          fs.renameSync(path.join(staging, file), path.join(dist, 'embed', file));
        }
      } finally {
        if (nodeEnv === undefined) delete process.env.NODE_ENV;
        else process.env.NODE_ENV = nodeEnv;
        fs.rmSync(staging, { recursive: true, force: true });
      }
    },
  },
  server: {
    inputs: ['server/src', 'server/build.mjs', 'server/package.json', ...SHARED],
    outputs: ['server/dist/main.js', 'server/dist/cli.js', 'server/dist/scalar.js'],
    stamp: 'server/dist/.inputs.sha256',
    async build() {
      const { buildServer } = await import('../server/build.mjs');
      await buildServer();
    },
  },
};

const isTest = (name) => /\.(test|stories)\.[cm]?[jt]sx?$/.test(name);

function filesUnder(relative) {
  const full = path.join(ROOT, relative);
  if (!fs.statSync(full, { throwIfNoEntry: false })?.isDirectory()) return [relative];
  const out = [];
  for (const entry of fs.readdirSync(full, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || isTest(entry.name)) continue;
    out.push(path.relative(ROOT, path.join(entry.parentPath, entry.name)));
  }
  return out;
}

/** The hash of a target's inputs: every file's path and content, in a stable order. */
export function inputsHash(target) {
  return hashOfInputs(TARGETS[target].inputs);
}

/** The hash of files and directories (relative to the root; tests and stories left out). */
export function hashOfInputs(inputs) {
  const hash = createHash('sha256');
  const files = inputs.flatMap(filesUnder).sort();
  for (const file of files) {
    hash.update(file).update('\0');
    hash.update(fs.readFileSync(path.join(ROOT, file))).update('\0');
  }
  return hash.digest('hex');
}

/** The hash a target's outputs were built from; undefined when it was never built. */
export function stampOf(stampPath) {
  try {
    return fs.readFileSync(stampPath, 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * Builds `target` unless its outputs exist and were built from the inputs as they are now;
 * `onBuild` is called just before a build starts (to tell a waiting user why).
 */
export async function ensureBuilt(target, { onBuild } = {}) {
  const { outputs, stamp, build } = TARGETS[target];
  const wanted = inputsHash(target);
  const stampPath = path.join(ROOT, stamp);
  const fresh =
    outputs.every((file) => fs.existsSync(path.join(ROOT, file))) && stampOf(stampPath) === wanted;
  if (fresh) return false;
  onBuild?.();
  await build();
  writeStamp(stampPath, wanted);
  return true;
}

/** Renamed into place: a process checking at the same moment reads the old stamp or the new. */
export function writeStamp(stampPath, hash) {
  fs.mkdirSync(path.dirname(stampPath), { recursive: true });
  const tmp = `${stampPath}.${process.pid}.${randomBytes(4).toString('hex')}`;
  fs.writeFileSync(tmp, hash);
  fs.renameSync(tmp, stampPath);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const names = process.argv.slice(2);
  for (const name of names.length > 0 ? names : Object.keys(TARGETS)) {
    if (!TARGETS[name]) throw new Error(`unknown build ${name}; known: ${Object.keys(TARGETS)}`);
    const built = await ensureBuilt(name);
    console.log(`${name}: ${built ? 'built' : 'unchanged, not rebuilt'}`);
  }
}
