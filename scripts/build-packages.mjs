// Builds what a host installs: each package's dist/ with one ESM file (index.js + map) and one
// bundled declaration file (index.d.ts), plus styles.css for the kit. Inside the repository
// nothing needs it: the `bridgekit-source` export condition resolves every package to src/.
// `node scripts/build-packages.mjs [name…]` (default: all four, as `npm run build:packages`).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'rolldown';
import { dts } from 'rolldown-plugin-dts';

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
function declarations(dir, name) {
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

/** Builds one package (`contract`, `client`, `node` or `react`) into packages/<name>/dist. */
export async function buildPackage(name) {
  if (!PACKAGES.includes(name)) throw new Error(`unknown package: ${name}`);
  const dir = path.join(ROOT, 'packages', name);
  const dist = path.join(dir, 'dist');
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  cleanDist(dist);
  if (name === 'react') await buildKitWithVite(dir);
  await build({
    cwd: dir,
    input: path.join(dir, 'src/index.ts'),
    external: externalOf(manifest),
    platform: 'neutral',
    logLevel: 'warn',
    checks: { pluginTimings: false },
    plugins: [declarations(dir, name)],
    output: { dir: dist, format: 'esm', sourcemap: true, entryFileNames: '[name].js' },
  });
}

/** Builds the given packages (default all), one after another. */
export async function buildPackages(names = PACKAGES) {
  for (const name of names) await buildPackage(name);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const names = process.argv.slice(2);
  await buildPackages(names.length > 0 ? names : PACKAGES);
}
