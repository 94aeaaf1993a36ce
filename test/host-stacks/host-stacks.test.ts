import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createSsoToken, exchangeSsoToken } from '@bridgekit/node';
import axe from 'axe-core';
import pg from 'pg';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { contrast } from '../../packages/react/src/provider/accent';
import { launchChromium } from '../e2e/support/browser';
import { stopGroup } from '../e2e/support/process-group';
import { cleanEnv, type Run, run } from '../pack/support/host-app';
import { type BridgeProcess, startBridgeProcess } from '../support/bridge-process';
import { freePort } from '../support/free-port';
import { type PgServer, startPgServer } from '../support/pg-server';
import { waitFor } from '../support/wait';
import {
  type AppSpec,
  installRoot,
  scaffold,
  viteBuilds,
  writeNextApp,
  writeViteApp,
} from './support/apps';

// The kit as hosts really build it: the four packed tarballs installed once with every stack's
// dependencies, apps made by each stack's own CLI, built for production (Vite 8; Next.js 16
// App Router with Turbopack and with webpack: a Server Component page importing the kit, a
// route handler using @bridgekit/node; Tailwind v4 before and after the kit; Bootstrap 5),
// served, and driven in Chromium against a real bridge, in light and dark, with axe. The Vite
// variants are pages of as few Vite apps as keep each page's CSS in order (one build and one
// preview server each); each Next.js app is built by `next build` with its bundler. The plain Vite page and both Next.js apps also serve
// the lifecycle components' page, against a data source on a private PostgreSQL that the
// bridge has health-checked and synced.

const MINUTES = 60_000;
const ALL_APPS: AppSpec[] = [
  { name: 'vite', stack: 'vite', cssImports: ['@bridgekit/react/styles.css'] },
  {
    name: 'vite-tailwind-kit-first',
    stack: 'vite',
    tailwind: true,
    css: '@import "@bridgekit/react/styles.css";\n@import "tailwindcss";',
    utilityWins: true,
  },
  {
    name: 'vite-tailwind-first',
    stack: 'vite',
    tailwind: true,
    css: '@import "tailwindcss";\n@import "@bridgekit/react/styles.css";',
    utilityWins: false,
  },
  {
    name: 'vite-bootstrap',
    stack: 'vite',
    cssImports: ['@bridgekit/react/styles.css', 'bootstrap/dist/css/bootstrap.css'],
  },
  { name: 'next-turbopack', stack: 'next' },
  { name: 'next-webpack', stack: 'next', webpack: true },
];
// BRIDGEKIT_HOST_STACKS=vite,next-turbopack builds and drives only those apps (a quicker loop
// while working on one stack); by default, all of them.
const ONLY = process.env.BRIDGEKIT_HOST_STACKS?.split(',');
const APPS = ALL_APPS.filter((spec) => !ONLY || ONLY.includes(spec.name));

/** The apps whose lifecycle page is driven: the plain Vite build and both Next.js bundlers. */
const LIFECYCLE_APPS = ['vite', 'next-turbopack', 'next-webpack'];
/** Tables of the private PostgreSQL the data source reads, as the SchemaBrowser must list them. */
const TABLES = ['customers', 'invoices', 'orders'];
const SHOTS = path.resolve(import.meta.dirname, '../../test-results/host-stacks');

const PALETTE = {
  light: { bg: 'rgb(255, 255, 255)', accent: 'rgb(15, 118, 110)' },
  dark: { bg: 'rgb(13, 17, 23)', accent: 'rgb(51, 139, 132)' },
};

/** A built app being served: one per Next.js app, one per build of Vite pages. */
interface Server {
  name: string;
  stack: AppSpec['stack'];
  port: number;
  child?: ChildProcess;
  output: string;
}

interface Served {
  spec: AppSpec;
  server: Server;
  origin: string;
  /** The app's page: `/<name>/` for a page of the Vite app, `/` for a Next.js app. */
  base: string;
}

let tmp: string;
let bridge: BridgeProcess;
let warehouseDb: PgServer | undefined;
let orgId: string;
let dataSourceId: string;
let jwtSecret: string;
let browser: Browser;
const servers: Server[] = [];
const served: Served[] = [];
const timings: Record<string, number> = {};
const started = Date.now();

const timed = async <T>(what: string, step: () => Promise<T>) => {
  const at = Date.now();
  const result = await step();
  timings[what] = Date.now() - at;
  return result;
};
const expectOk = (result: Run, what: string) =>
  expect(result.code, `${what}\n${result.output}`).toBe(0);

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'bk-stacks-'));
  const root = path.join(tmp, 'root');
  mkdirSync(path.join(root, 'apps'), { recursive: true });
  const vitePages = new Map<Server, AppSpec[]>();
  for (const pages of viteBuilds(APPS.filter((spec) => spec.stack === 'vite'))) {
    const name = pages[0]!.name;
    const server: Server = { name, stack: 'vite', port: await freePort(), output: '' };
    servers.push(server);
    vitePages.set(server, pages);
    for (const spec of pages) served.push(servedAt(spec, server, `/${spec.name}/`));
  }
  for (const spec of APPS.filter((s) => s.stack === 'next')) {
    const server: Server = { name: spec.name, stack: 'next', port: await freePort(), output: '' };
    servers.push(server);
    served.push(servedAt(spec, server, '/'));
  }

  // The install and the scaffolds wait on npm's cache and the registry, not on the bridge: they
  // run while the bridge starts and the data source is seeded.
  // Packed once per run by the pack layer's global setup (test/pack/support/packed.ts).
  const { dir: tarballs, packed } = inject('tarballs');
  const templates = path.join(root, 'templates');
  mkdirSync(templates);
  const prepared = Promise.all([
    timed('install', () =>
      installRoot(
        root,
        packed.map((p) => path.join(tarballs, p.filename)),
      ),
    ),
    timed('create vite', () => scaffold('vite', path.join(templates, 'vite'))),
    timed('create next', () => scaffold('next', path.join(templates, 'next'))),
  ]);
  const launched = launchChromium();
  // Nothing rejects unobserved while the bridge starts: both are awaited below.
  prepared.catch(() => {});
  launched.catch(() => {});

  // Background jobs on, so that a requested sync runs; loopback data sources allowed.
  bridge = await startBridgeProcess({
    env: { BRIDGE_BACKGROUND_JOBS: 'true', BRIDGE_ALLOW_PRIVATE_NETWORKS: 'true' },
  });
  const key = await bridge.cli('keys', 'create', '--email', 'owner@host.test');
  const { data } = (await bridgeApi(key, 'POST', '/api/public/organizations?include=jwtSecret', {
    name: 'Stacks',
    embedAllowedOrigins: servers.map((s) => `http://127.0.0.1:${s.port}`),
  })) as { data: { id: string; jwtSecret: string } };
  ({ id: orgId, jwtSecret } = data);
  dataSourceId = await timed('seed data source', () => seedWarehouse(key));

  const [install, createVite, createNext] = await prepared;
  expectOk(install, 'npm install');
  expectOk(createVite, 'create-vite');
  expectOk(createNext, 'create-next-app');
  // The builds run side by side: webpack's is mostly one thread, and each waits on the disk.
  await timed('builds', () =>
    Promise.all(
      servers.map(async (server) => {
        const dir = path.join(root, 'apps', server.name);
        const pages = vitePages.get(server);
        if (pages) writeViteApp(pages, path.join(templates, 'vite'), dir);
        else writeNextApp(server.name, path.join(templates, 'next'), dir, root);
        const spec = served.find((app) => app.server === server)!.spec;
        expectOk(await timed(`build ${server.name}`, () => build(spec, dir, root)), server.name);
        // Built as a host ships it: React's production JSX runtime, not the development one.
        const scripts = builtScripts(path.join(dir, pages ? 'dist' : '.next/static'));
        expect(scripts.length, server.name).toBeGreaterThan(0);
        expect(scripts.filter((file) => readFileSync(file, 'utf8').includes('jsxDEV'))).toEqual([]);
        // Each page links one stylesheet: its CSS in the order the page imports it.
        for (const page of pages ?? []) {
          const html = readFileSync(path.join(dir, 'dist', page.name, 'index.html'), 'utf8');
          expect(html.match(/rel="stylesheet"/g), `${page.name}: ${html}`).toHaveLength(1);
        }
        server.child = serve(server, dir);
      }),
    ),
  );
  await Promise.all(
    served.map((app) =>
      waitFor(() => fetch(`${app.origin}${app.base}`).then((r) => r.ok), {
        timeoutMs: 60_000,
        what: `${app.spec.name} on ${app.origin}${app.base}: ${app.server.output}`,
      }),
    ),
  );
  browser = await launched;
}, 30 * MINUTES);

afterAll(async () => {
  await browser?.close();
  await Promise.all(servers.map((server) => stopGroup(server.child, 5_000)));
  await bridge?.stop();
  await warehouseDb?.destroy();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  console.log(
    `host stacks: ${Math.round((Date.now() - started) / 1000)} s in all; steps (ms): ${JSON.stringify(timings)}`,
  );
  // Removing the install root (every stack's node_modules) takes a while on a busy machine.
}, 3 * MINUTES);

const servedAt = (spec: AppSpec, server: Server, base: string): Served => ({
  spec,
  server,
  origin: `http://127.0.0.1:${server.port}`,
  base,
});

async function bridgeApi(key: string, method: string, route: string, body?: unknown) {
  const res = await fetch(`${bridge.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<unknown>;
}

/**
 * A private PostgreSQL with three tables, a data source of the organization on it, health-checked
 * and synced by the bridge: the lifecycle page's real data. Returns the data source's id.
 */
async function seedWarehouse(key: string): Promise<string> {
  warehouseDb = await startPgServer();
  const db = new pg.Client({ connectionString: warehouseDb.url });
  await db.connect();
  try {
    await db.query(
      `create table public.customers (id bigint primary key, email text not null);
       create table public.orders (id bigint primary key, customer_id bigint not null, total numeric(12, 2));
       create table public.invoices (id bigint primary key, order_id bigint not null, paid_at timestamptz)`,
    );
  } finally {
    await db.end();
  }
  const orgPath = `/api/public/organizations/${orgId}`;
  const { data: source } = (await bridgeApi(key, 'POST', `${orgPath}/data-sources`, {
    dialect: 'POSTGRES',
    displayName: 'Warehouse',
    host: '127.0.0.1',
    port: warehouseDb.port,
    databaseName: 'postgres',
    username: 'postgres',
    sslEnabled: false,
  })) as { data: { id: string } };
  const sourcePath = `${orgPath}/data-sources/${source.id}`;
  const { data: health } = (await bridgeApi(key, 'POST', `${sourcePath}/health-check`)) as {
    data: { lastHealthStatus: string };
  };
  expect(health.lastHealthStatus).toBe('HEALTHY');
  await bridgeApi(key, 'POST', `${sourcePath}/sync`);
  await waitFor(
    async () => {
      const { data: record } = (await bridgeApi(key, 'GET', sourcePath)) as {
        data: { hasCompletedFirstSync: boolean };
      };
      return record.hasCompletedFirstSync;
    },
    { timeoutMs: 60_000, intervalMs: 250, what: 'the first schema sync' },
  );
  return source.id;
}

/** Every .js file under `dir`. */
const builtScripts = (dir: string) =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.js'))
    .map((file) => path.join(dir, file));

function build(spec: AppSpec, dir: string, root: string): Promise<Run> {
  const bin = (name: string) => path.join(root, 'node_modules/.bin', name);
  const env = cleanEnv({
    VITE_BRIDGE_URL: bridge.url,
    VITE_ORG_ID: orgId,
    VITE_DATA_SOURCE_ID: dataSourceId,
    NEXT_PUBLIC_BRIDGE_URL: bridge.url,
    NEXT_PUBLIC_ORG_ID: orgId,
    NEXT_PUBLIC_DATA_SOURCE_ID: dataSourceId,
    NEXT_TELEMETRY_DISABLED: '1',
  });
  if (spec.stack === 'vite') return run(bin('vite'), ['build'], dir, env);
  return run(bin('next'), ['build', ...(spec.webpack ? ['--webpack'] : [])], dir, env);
}

function serve(server: Server, dir: string): ChildProcess {
  const bin = path.join(tmp, 'root/node_modules/.bin', server.stack);
  const args =
    server.stack === 'vite'
      ? ['preview', '--host', '127.0.0.1', '--port', String(server.port), '--strictPort']
      : ['start', '-H', '127.0.0.1', '-p', String(server.port)];
  const child = spawn(bin, args, {
    cwd: dir,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: cleanEnv({
      BRIDGE_URL: bridge.url,
      BRIDGE_ORG_SECRET: jwtSecret,
      NEXT_PUBLIC_ORG_ID: orgId,
      NEXT_TELEMETRY_DISABLED: '1',
    }),
  });
  child.stdout?.on('data', (chunk) => (server.output += chunk));
  child.stderr?.on('data', (chunk) => (server.output += chunk));
  return child;
}

/**
 * One of the app's pages, signed in (Vite apps get a session token in the fragment), once
 * `ready` is on it: the form page by default, or the lifecycle page.
 */
async function openApp(
  app: Served,
  scheme: 'light' | 'dark',
  which: 'form' | 'lifecycle' = 'form',
): Promise<{ page: Page; logs: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1100, height: 1000 } });
  page.setDefaultTimeout(20_000);
  const logs: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') logs.push(message.text());
  });
  let hash = '';
  if (app.spec.stack === 'vite') {
    const jwt = await createSsoToken({
      secret: jwtSecret,
      orgId,
      user: { email: 'ada@host.test', role: 'ADMIN' },
    });
    const session = await exchangeSsoToken({ baseUrl: bridge.url, jwt });
    hash = `#token=${session.sessionToken}`;
  }
  const route = which === 'form' ? '' : app.spec.stack === 'vite' ? '?page=lifecycle' : 'lifecycle';
  await page.goto(`${app.origin}${app.base}${route}${hash}`);
  await page.evaluate((s) => {
    if (s === 'dark') document.documentElement.dataset.bkTheme = 'dark';
  }, scheme);
  await page.waitForSelector(
    which === 'form'
      ? 'form.bk-data-source-form[data-state="idle"]'
      : '.bk-organization-settings[data-state="ready"]',
  );
  return { page, logs };
}

const style = (page: Page, selector: string, property: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((el, p) => getComputedStyle(el).getPropertyValue(p), property);

const rgbOf = (colour: string) => {
  const channels = /^rgb\((\d+), (\d+), (\d+)\)$/.exec(colour);
  if (!channels) throw new Error(`not an opaque rgb() colour: ${colour}`);
  return channels.slice(1).map(Number);
};

async function textContrast(page: Page, selector: string, background = selector) {
  const fg = await style(page, selector, 'color');
  const bg = await style(page, background, 'background-color');
  return contrast(rgbOf(fg), rgbOf(bg));
}

async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(axe.source);
  return page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe was injected just above.
    const result = await (window as any).axe.run(document);
    return (result as axe.AxeResults).violations.map(
      (v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join('; ')}`,
    );
  });
}

// An app's checks run side by side, each on its own page: most of each is waiting on the page.
// Concurrent tests assert with their own `expect` (Vitest's rule for concurrent tests).
describe.concurrent.each(APPS.map((spec) => [spec.name, spec] as const))('%s', (name, spec) => {
  const app = () => served.find((a) => a.spec.name === name)!;

  it.for(['light', 'dark'] as const)(
    'keeps the kit styled and accessible in %s',
    // Longer than the page's own waits (20 s), as below: on a loaded machine these checks run
    // 20-29 s, and a failing wait should name its locator rather than meet the test's limit.
    { timeout: 2 * MINUTES },
    async (scheme, { expect }) => {
      const { page, logs } = await openApp(app(), scheme);
      const palette = PALETTE[scheme];
      const form = '.bk.bk-data-source-form';
      expect(await style(page, form, 'background-color')).toBe(palette.bg);
      expect(await style(page, form, 'font-family')).toMatch(/^Georgia/);
      expect(await textContrast(page, '.bk-field__label', form)).toBeGreaterThanOrEqual(4.5);
      expect(await style(page, '.bk-button--primary', 'background-color')).toBe(palette.accent);
      expect(await textContrast(page, '.bk-button--primary')).toBeGreaterThanOrEqual(4.5);
      expect(await style(page, '.bk-button--primary', 'font-family')).toMatch(/^Georgia/);
      expect(await style(page, '.bk-input', 'border-top-width')).toBe('1px');
      expect(await style(page, '.bk-input', 'border-top-style')).toBe('solid');
      expect(await style(page, '.bk-input', 'border-top-color')).not.toBe('rgba(0, 0, 0, 0)');
      if (spec.utilityWins !== undefined) {
        const radius = await style(page, form, 'border-top-left-radius');
        expect(radius === '0px', `rounded-none on the form: ${radius}`).toBe(spec.utilityWins);
      }
      expect(await axeViolations(page)).toEqual([]);

      await page.getByRole('button', { name: 'Select an organization' }).click();
      await page.getByRole('option', { name: /Stacks/ }).waitFor();
      expect(await style(page, '.bk.bk-dialog', 'background-color')).toBe(palette.bg);
      expect(await style(page, '.bk.bk-dialog', 'border-top-style')).toBe('solid');
      expect(await textContrast(page, '.bk.bk-dialog')).toBeGreaterThanOrEqual(4.5);
      expect(await style(page, '.bk.bk-overlay', 'background-color')).not.toBe('rgba(0, 0, 0, 0)');
      expect(await axeViolations(page)).toEqual([]);
      expect(logs.filter((line) => /hydrat|did not match/i.test(line))).toEqual([]);
      await page.close();
    },
  );

  if (LIFECYCLE_APPS.includes(name)) {
    it.for(['light', 'dark'] as const)(
      'renders the lifecycle components with real data, styled and accessible, in %s',
      // Longer than the page's own waits (20 s), so that a wait that fails names its locator.
      { timeout: 2 * MINUTES },
      async (scheme, { expect }) => {
        const { page, logs } = await openApp(app(), scheme, 'lifecycle');
        const palette = PALETTE[scheme];

        // Real data: the organization, both members, the data source's health, its tables.
        const settings = page.locator('.bk.bk-organization-settings');
        await settings.getByRole('heading', { name: 'Stacks' }).waitFor();
        expect(await settings.getByLabel('Name').inputValue()).toBe('Stacks');
        // A session ADMIN: the host settings read-only, no deletion (an API key's).
        expect(await settings.getByLabel('Slug').isEditable()).toBe(false);
        expect(await settings.getByRole('button', { name: 'Delete organization' }).count()).toBe(0);
        const members = page.getByRole('region', { name: 'Members' });
        await members.getByText('owner@host.test').waitFor();
        await members.getByText('ada@host.test').first().waitFor();
        const sources = page.getByRole('region', { name: 'Data sources' });
        await sources.getByText('Warehouse', { exact: true }).waitFor();
        await sources.getByRole('button', { name: /^Health: Healthy/ }).waitFor();
        const tree = page.getByRole('tree', { name: /Warehouse/ });
        for (const table of TABLES) {
          await tree.getByRole('treeitem').getByText(`public.${table}`, { exact: true }).waitFor();
        }

        for (const root of [
          '.bk.bk-organization-settings',
          '.bk.bk-member-list',
          '.bk.bk-data-source-list',
        ]) {
          expect(await style(page, root, 'background-color'), root).toBe(palette.bg);
          expect(await style(page, root, 'font-family'), root).toMatch(/^Georgia/);
          expect(await textContrast(page, root), root).toBeGreaterThanOrEqual(4.5);
        }
        expect(await style(page, '.bk.bk-schema-browser', 'font-family')).toMatch(/^Georgia/);
        expect(
          await textContrast(page, '.bk-schema-browser__row', '.host-panel'),
        ).toBeGreaterThanOrEqual(4.5);
        const save = '.bk-organization-settings .bk-button--primary';
        expect(await style(page, save, 'background-color')).toBe(palette.accent);
        expect(await textContrast(page, save)).toBeGreaterThanOrEqual(4.5);
        expect(
          await textContrast(
            page,
            '.bk-organization-settings .bk-field__label',
            '.bk.bk-organization-settings',
          ),
        ).toBeGreaterThanOrEqual(4.5);
        expect(await axeViolations(page)).toEqual([]);

        mkdirSync(SHOTS, { recursive: true });
        await page.screenshot({
          path: path.join(SHOTS, `${name}-lifecycle-${scheme}.png`),
          fullPage: true,
        });
        expect(logs.filter((line) => /hydrat|did not match/i.test(line))).toEqual([]);
        await page.close();
      },
    );
  }

  if (spec.stack === 'next') {
    it("renders the kit's loading state on the server", async ({ expect }) => {
      const html = await (await fetch(app().origin)).text();
      expect(html).toMatch(/class="bk bk-data-source-form"[^>]*data-state="loading"/);
      expect(html).toContain('bk-org-picker');
    });
  }
});
