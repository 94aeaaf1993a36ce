import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../../scripts/build-cache.mjs';
import { SCALAR_BUNDLE, SERVER_BUNDLE } from '../../server/build.mjs';
import { runBridgeCli } from '../support/bridge-cli';
import { type BridgeData, newBridgeData, removeBridgeData } from '../support/bridge-data';
import { type BridgeProcess, startBridgeProcess } from '../support/bridge-process';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const MODULES = path.join(ROOT, 'node_modules');

/** The server's runtime tree as npm sees it: each installed package's directory. */
async function runtimeTree(): Promise<string[]> {
  const { stdout } = await run(
    'npm',
    ['ls', '--omit=dev', '-w', 'server', '--all', '--parseable'],
    {
      cwd: ROOT,
    },
  );
  return stdout
    .trim()
    .split('\n')
    .filter((line) => line.startsWith(`${MODULES}/`));
}

/** The top-level package (`name` or `@scope/name`) a package directory belongs to. */
function topLevelName(dir: string): string {
  const parts = path.relative(MODULES, dir).split(path.sep);
  return parts.slice(0, parts[0]?.startsWith('@') ? 2 : 1).join('/');
}

let tree: string[];
let names: Set<string>;

beforeAll(async () => {
  tree = await runtimeTree();
  names = new Set(tree.map((dir) => path.relative(MODULES, dir).split('/node_modules/').at(-1)!));
});

describe("the server's runtime dependencies", () => {
  it('hold no build, bundling or type-checking tool, and no docs renderer source', () => {
    const tools = [...names].filter((name) =>
      /^(tsx|esbuild|@esbuild\/.*|typescript|vite|rolldown|@scalar\/.*|vue|@vue\/.*|ai|@ai-sdk\/.*)$/.test(
        name,
      ),
    );
    expect(tools).toEqual([]);
  });

  it('declare no @types package (the types are devDependencies)', () => {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'server/package.json'), 'utf8'));
    expect(Object.keys(manifest.dependencies).filter((name) => name.startsWith('@types/'))).toEqual(
      [],
    );
  });
});

// An install of the built server with its runtime dependencies only (what `npm ci
// --omit=dev` leaves): node resolves inside it, symlinks kept, so a missing package fails.
describe('the built server with its runtime dependencies only', { timeout: 120_000 }, () => {
  let install: string;
  let data: BridgeData;
  let bridge: BridgeProcess;
  const NODE_OPTIONS = '--preserve-symlinks --preserve-symlinks-main';

  beforeAll(async () => {
    await ensureBuilt('server');
    install = mkdtempSync(path.join(tmpdir(), 'bk-runtime-'));
    for (const part of ['server/dist', 'server/bin', 'server/package.json']) {
      cpSync(path.join(ROOT, part), path.join(install, part), { recursive: true });
    }
    for (const name of new Set(tree.map(topLevelName))) {
      mkdirSync(path.dirname(path.join(install, 'node_modules', name)), { recursive: true });
      symlinkSync(path.join(MODULES, name), path.join(install, 'node_modules', name));
    }
    data = newBridgeData();
    const main = path.join(install, 'server/dist/main.js');
    bridge = await startBridgeProcess({
      data,
      env: { NODE_OPTIONS },
      launch: (command, args) => [command, args.map((a) => (a === SERVER_BUNDLE ? main : a))],
    });
  });
  afterAll(async () => {
    await bridge?.stop();
    removeBridgeData(data);
    rmSync(install, { recursive: true, force: true });
  });

  it('serves /docs with the renderer the build copied beside it', async () => {
    const page = await fetch(`${bridge.url}/docs`);
    expect(page.status).toBe(200);
    const renderer = await fetch(`${bridge.url}/docs/assets/scalar.js`);
    expect(renderer.status).toBe(200);
    expect(renderer.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(Buffer.from(await renderer.arrayBuffer()).equals(readFileSync(SCALAR_BUNDLE))).toBe(
      true,
    );
  });

  it('runs the CLI (no TypeScript loader, no build tool) on the same store', async () => {
    const res = await runBridgeCli(
      ['keys', 'create', '--email', 'runtime-only@example.com'],
      {
        NODE_OPTIONS,
        NODE_ENV: 'production',
        BRIDGE_DATA_DIR: data.dataDir,
        BRIDGE_SECRET_KEY: data.secretKey,
        BRIDGE_SESSION_SECRET: data.sessionSecret,
      },
      60_000,
      { bin: path.join(install, 'server/bin/bridge.js') },
    );
    expect(res.stderr).toBe(`bridge: store SQLite ${path.join(data.dataDir, 'bridge.db')}\n`);
    expect(res.code).toBe(0);
    const key = res.stdout.trim();
    const orgs = await fetch(`${bridge.url}/api/public/organizations`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(orgs.status).toBe(200);
  });
});
