// Builds what a host installs: each package's dist/ with one ESM file (index.js + map) and one
// bundled declaration file (index.d.ts), plus styles.css for the kit. Inside the repository
// nothing needs it: the `bridgekit-source` export condition resolves every package to src/.
// A package whose inputs (its sources and manifest, the sources of the packages it depends on,
// this script, the tsconfig and the lockfile) are unchanged since its last build is not rebuilt:
// `npm run size`, `npm pack`'s prepack and the pack tests all ask for builds in one `npm test`.
// `node scripts/build-packages.mjs [--force] [name…]` (default: all four, as `npm run build:packages`).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { hashOfInputs, stampOf, writeStamp } from './build-cache.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
export const PACKAGES = ['contract', 'client', 'node', 'react'];

/** A package's own dependencies and peers stay imports; so do Node's built-in modules. */
function externalOf(manifest) {
  const names = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies });
  return (id) => id.startsWith('node:') || names.some((n) => id === n || id.startsWith(`${n}/`));
}

/** Removes the previous lib build, but never dist/embed (the bridge's page, built separately). */
function cleanDist(dist) {
  if (!fs.existsSync(dist)) return;
  for (const entry of fs.readdirSync(dist)) {
    if (entry !== 'embed') fs.rmSync(path.join(dist, entry), { recursive: true, force: true });
  }
}

/** The declarations, bundled: relative imports inside one package would not resolve in a
 * host on `moduleResolution: node16` (no file extensions), and one file is what tools read. */
async function declarations(dir, name) {
  const { dts } = await import('rolldown-plugin-dts');
  return dts({
    tsconfig: path.join(ROOT, 'tsconfig.json'),
    compilerOptions: {
      noEmit: false,
      declaration: true,
      emitDeclarationOnly: true,
      // Only the Node SDK may name Node's types; the others must type-check without @types/node.
      types: name === 'node' ? ['node'] : [],
    },
    cwd: dir,
    emitDtsOnly: name === 'react',
  });
}

/**
 * The kit's JavaScript and styles.css come from its own Vite config (JSX, CSS parts). Always a
 * production build: under NODE_ENV=development or test (a shell's, or vitest's when a test
 * packs), Vite would emit react/jsx-dev-runtime calls, which React's production builds lack
 * (a host's `next build` fails with "jsxDEV is not a function").
 */
async function buildKitWithVite(dir) {
  const vite = await import('vite');
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await vite.build({
      root: dir,
      configFile: path.join(dir, 'vite.config.ts'),
      mode: 'production',
      logLevel: 'warn',
      build: { emptyOutDir: false },
    });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
}

/**
 * Entry points beyond src/index.ts: the contract's origin rule, which the kit imports on its own
 * (the contract's index runs zod at load and would carry zod into every page).
 */
const EXTRA_ENTRIES = { contract: ['origin-pattern'] };

/** What a package's build reads; its hash decides whether the build is still current. */
function inputsOf(name, manifest) {
  const own = `packages/${name}`;
  const deps = Object.keys(manifest.dependencies ?? {})
    .filter((dep) => dep.startsWith('@bridgekit/'))
    .flatMap((dep) => [`packages/${dep.slice('@bridgekit/'.length)}/src`]);
  const config = fs.existsSync(path.join(ROOT, own, 'vite.config.ts'))
    ? [`${own}/vite.config.ts`]
    : [];
  return [
    `${own}/src`,
    `${own}/package.json`,
    ...config,
    ...deps,
    'scripts/build-packages.mjs',
    'tsconfig.json',
    'package-lock.json',
  ];
}

/** The files every build writes; a build missing one is not current whatever its stamp says. */
function outputsOf(name) {
  const entries = ['index', ...(EXTRA_ENTRIES[name] ?? [])].map((entry) => `${entry}.js`);
  const styles = name === 'react' ? ['styles.css'] : [];
  return [...entries, 'index.d.ts', ...styles].map((file) => `packages/${name}/dist/${file}`);
}

/** Outside dist/, so that no stamp is packed into a tarball. */
const stampPath = (name) =>
  path.join(ROOT, 'node_modules/.cache/bridgekit-build', `${name}.sha256`);

/**
 * Builds one package (`contract`, `client`, `node` or `react`) into packages/<name>/dist, unless
 * its outputs exist and were built from its inputs as they are now (`force` builds anyway).
 * Resolves to whether it built.
 */
export async function buildPackage(name, { force = false } = {}) {
  if (!PACKAGES.includes(name)) throw new Error(`unknown package: ${name}`);
  const dir = path.join(ROOT, 'packages', name);
  const dist = path.join(dir, 'dist');
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const wanted = hashOfInputs(inputsOf(name, manifest));
  const current =
    outputsOf(name).every((file) => fs.existsSync(path.join(ROOT, file))) &&
    stampOf(stampPath(name)) === wanted;
  if (current && !force) return false;
  fs.rmSync(stampPath(name), { force: true });
  cleanDist(dist);
  if (name === 'react') await buildKitWithVite(dir);
  const { build } = await import('rolldown');
  await build({
    cwd: dir,
    input: Object.fromEntries(
      ['index', ...(EXTRA_ENTRIES[name] ?? [])].map((entry) => [
        entry,
        path.join(dir, `src/${entry}.ts`),
      ]),
    ),
    external: externalOf(manifest),
    platform: 'neutral',
    logLevel: 'warn',
    checks: { pluginTimings: false },
    plugins: [await declarations(dir, name)],
    output: { dir: dist, format: 'esm', sourcemap: true, entryFileNames: '[name].js' },
  });
  writeStamp(stampPath(name), wanted);
  return true;
}

/** Builds the given packages (default all), one after another. */
export async function buildPackages(names = PACKAGES, options = {}) {
  for (const name of names) {
    const built = await buildPackage(name, options);
    // On stderr: `npm pack --json` runs this as prepack, and its stdout must stay JSON.
    console.error(`@bridgekit/${name}: ${built ? 'built' : 'unchanged, not rebuilt'}`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const names = args.filter((arg) => arg !== '--force');
  await buildPackages(names.length > 0 ? names : PACKAGES, { force: args.includes('--force') });
}
