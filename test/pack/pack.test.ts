import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium } from '../e2e/support/browser';
import { type BridgeProcess, startBridgeProcess } from '../support/bridge-process';
import { freePort } from '../support/free-port';
import {
  copyExample,
  type ExampleBackend,
  installTarballs,
  PACKAGES,
  type Packed,
  ROOT,
  type Run,
  readJson,
  run,
  startExampleBackend,
} from './support/host-app';
import { attw, missingRelativeImports, publint, unpack } from './support/tarball-checks';

// What a host team does with our packages today: `npm pack` all four (once per run, in the pack
// layer's global setup: test/pack/support/packed.ts), install the tarballs into a copy of
// examples/host-app (a plain Node backend and a Vite + React page), type-check both under strict
// host options, build the page, and use it in Chromium against a real bridge and the machine's
// PostgreSQL. Everything lives in a temp dir, removed afterwards.

const MINUTES = 60_000;
const WAIT = { timeout: 30_000 };
const PG = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'postgres' };

let tmp: string;
let app: string;
let tarballs: string;
let packed: Packed[];
let install: Run;
let bridge: BridgeProcess | undefined;
let backend: ExampleBackend | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'bk-pack-'));
  ({ dir: tarballs, packed } = inject('tarballs'));
  app = copyExample(path.join(tmp, 'app'));
  install = await installTarballs(
    app,
    packed.map((p) => path.join(tarballs, p.filename)),
  );
}, 20 * MINUTES);

afterAll(async () => {
  await browser?.close();
  await backend?.stop();
  await bridge?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const expectOk = (result: Run) => expect(result.code, result.output).toBe(0);

describe('the packed packages in a host app', () => {
  it('packs what a host needs: all of the built dist/ (every chunk), the manifest and the README', () => {
    expect(packed.map((p) => p.name).sort()).toEqual(PACKAGES.map((n) => `@bridgekit/${n}`).sort());
    for (const p of packed) {
      const dist = path.join(ROOT, 'packages', p.name.replace('@bridgekit/', ''), 'dist');
      // dist/embed is the bridge's own full-embed page, not part of the kit.
      const built = readdirSync(dist)
        .filter((f) => f !== 'embed')
        .map((f) => `dist/${f}`);
      expect(built, p.name).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts']));
      const files = p.files.map((f) => f.path).sort();
      expect(files, p.name).toEqual([...built, 'README.md', 'package.json'].sort());
      expect(p.version).toBe('0.1.0');
    }
    // The contract's examples are a chunk of their own, loaded on demand by its index.js.
    const contract = packed.find((p) => p.name === '@bridgekit/contract');
    expect(contract?.files.map((f) => f.path)).toContainEqual(
      expect.stringMatching(/^dist\/examples-[\w-]+\.js$/),
    );
  });

  it('ships every file its JavaScript imports, in every tarball', async () => {
    for (const p of packed) {
      const unpacked = await unpack(
        path.join(tarballs, p.filename),
        path.join(tmp, 'unpacked', p.name),
      );
      expect(missingRelativeImports(unpacked), p.name).toEqual([]);
    }
  });

  it("marks the kit's entry as client code ('use client' first), and ships production JSX", async () => {
    for (const p of packed) {
      const unpacked = path.join(tmp, 'unpacked', p.name, 'package');
      const first = readFileSync(path.join(unpacked, 'dist/index.js'), 'utf8').split('\n')[0];
      if (p.name === '@bridgekit/react') expect(first).toMatch(/^["']use client["'];$/);
      else expect(first, p.name).not.toContain('use client');
      // A production build whatever NODE_ENV packed it (vitest's is `test`).
      const code = readFileSync(path.join(unpacked, 'dist/index.js'), 'utf8');
      expect(code, p.name).not.toMatch(/jsxDEV|jsx-dev-runtime/);
    }
  });

  it(
    'passes publint (strict) and Are the Types Wrong (ESM-only) on every tarball',
    async () => {
      for (const p of packed) {
        const tarball = path.join(tarballs, p.filename);
        const [lint, types] = await Promise.all([publint(ROOT, tarball), attw(ROOT, tarball)]);
        expectOk(lint);
        expect(lint.stdout, p.name).toContain('All good!');
        expectOk(types);
        expect(types.stdout, p.name).toContain(`"${p.name}"`);
      }
    },
    5 * MINUTES,
  );

  it('installs the four tarballs together, with one copy of each package', async () => {
    expectOk(install);
    expectOk(await run('npm', ['ls', '--all', '--loglevel=error'], app));
    for (const name of PACKAGES) {
      const manifest = readJson(path.join(app, 'node_modules/@bridgekit', name, 'package.json'));
      expect(manifest).toMatchObject({ version: '0.1.0' });
      const nested = path.join(app, 'node_modules/@bridgekit', name, 'node_modules');
      expect(existsSync(nested) ? readdirSync(nested) : [], name).toEqual([]);
    }
  });

  it('imports @bridgekit/node in plain Node (no loader, no bundler) and signs a token', async () => {
    const script = `import { createSsoToken } from '@bridgekit/node';
      const jwt = await createSsoToken({ secret: 's'.repeat(32), orgId: 'org_1', user: { email: 'a@b.test' } });
      console.log(JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url')).email);`;
    const result = await run(process.execPath, ['--input-type=module', '-e', script], app);
    expectOk(result);
    expect(result.stdout.trim()).toBe('a@b.test');
  });

  it(
    'type-checks the page (bundler) and the backend (nodenext) under strict host options',
    async () => {
      const strict = {
        strict: true,
        noPropertyAccessFromIndexSignature: true,
        exactOptionalPropertyTypes: true,
        skipLibCheck: false,
      };
      expect(readJson(path.join(app, 'tsconfig.json'))).toMatchObject({
        compilerOptions: { ...strict, moduleResolution: 'Bundler' },
      });
      expect(readJson(path.join(app, 'tsconfig.server.json'))).toMatchObject({
        compilerOptions: { ...strict, moduleResolution: 'NodeNext' },
      });
      const tsc = path.join(app, 'node_modules/.bin/tsc');
      const [page, server] = await Promise.all([
        run(tsc, ['-p', 'tsconfig.json'], app),
        // Emits build/server/*.js, which plain node runs below.
        run(tsc, ['-p', 'tsconfig.server.json'], app),
      ]);
      expectOk(page);
      expectOk(server);
    },
    5 * MINUTES,
  );

  it(
    'builds the page with Vite',
    async () => {
      expectOk(await run(path.join(app, 'node_modules/.bin/vite'), ['build'], app));
      expect(existsSync(path.join(app, 'dist/index.html'))).toBe(true);
    },
    5 * MINUTES,
  );

  it(
    'signs in, lists organizations, verifies and saves a data source, lays out by role',
    async () => {
      bridge = await startBridgeProcess({ env: { BRIDGE_ALLOW_PRIVATE_NETWORKS: 'true' } });
      const key = await bridge.cli('keys', 'create', '--email', 'owner@host.test');
      await bridgeApi(key, 'POST', '/api/public/organizations', { name: 'Acme Analytics' });
      const port = await freePort();
      backend = await startExampleBackend(app, {
        BRIDGE_URL: bridge.url,
        BRIDGE_API_KEY: key,
        PORT: String(port),
      });
      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
      page.setDefaultTimeout(WAIT.timeout);
      await page.goto(backend.origin);

      await page.getByRole('button', { name: 'Sign in as Ada Lovelace (admin)' }).click();
      await expectMemberCard(page, 'Ada Lovelace', 'ada@example.test');
      await pickOrganization(page, 'Acme Analytics');
      const orgId = await page.evaluate(
        async () => (await (await fetch('/api/me')).json()).organization.id,
      );
      await addDataSource(page, 'Warehouse');
      const { data } = (await bridgeApi(
        key,
        'GET',
        `/api/public/organizations/${orgId}/data-sources`,
      )) as {
        data: { displayName: string; host: string; port: number; sslEnabled: boolean }[];
      };
      expect(data).toMatchObject([
        { displayName: 'Warehouse', host: PG.host, port: PG.port, sslEnabled: false },
      ]);
      expect(await page.content()).not.toContain(key);
      await useAdminPage(page, key, orgId);

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Sign in as Grace Hopper (member)' }).click();
      await expectMemberCard(page, 'Grace Hopper', 'grace@example.test');
      await page.getByRole('list', { name: 'Data sources' }).getByText('Warehouse').waitFor(WAIT);
      expect(await page.getByRole('heading', { name: 'Admin console' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Organization admin' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Test connection' }).count()).toBe(0);
      // The backend lends its API key to admins only.
      const proxied = await page.evaluate(
        async () => (await fetch('/bridge/api/public/organizations')).status,
      );
      expect(proxied).toBe(401);
    },
    5 * MINUTES,
  );
});

/** The admin page of the kit's lifecycle components, against the real bridge. */
async function useAdminPage(page: Page, key: string, orgId: string) {
  await page.getByRole('button', { name: 'Organization admin' }).click();
  const settings = page.locator('.bk-organization-settings');
  await settings.getByLabel('Name').waitFor(WAIT);
  // A session may change the name and AI context; slug, full embed, origins and deletion take an
  // API key at the bridge, so the page shows them read-only or not at all.
  await settings.getByText(/set by your application with an API key/).waitFor(WAIT);
  expect(await settings.getByLabel('Slug').isEditable()).toBe(false);
  expect(
    await settings.getByRole('button', { name: /Add origin|Delete organization/ }).count(),
  ).toBe(0);
  await settings.getByLabel('AI context').fill('Amounts are in EUR.');
  await settings.getByRole('button', { name: 'Save changes' }).click();
  await settings.getByText('Saved.').waitFor(WAIT);
  const { data: saved } = (await bridgeApi(key, 'GET', `/api/public/organizations/${orgId}`)) as {
    data: { customAiContext: string | null };
  };
  expect(saved.customAiContext).toBe('Amounts are in EUR.');
  // The API key's owner created the organization as its ADMIN, so Ada's role can change.
  const members = page.getByRole('region', { name: 'Members' });
  await members.getByText('Ada Lovelace (you)').waitFor(WAIT);
  await members.getByText('owner@host.test').waitFor(WAIT);
  expect(await members.getByRole('combobox', { name: 'Role of Ada Lovelace' }).isEnabled()).toBe(
    true,
  );
  const sources = page.getByRole('region', { name: 'Data sources' });
  await sources.getByText('Warehouse', { exact: true }).waitFor(WAIT);
  await sources.getByRole('button', { name: 'Check now Warehouse' }).click();
  await sources.getByRole('button', { name: /^Health: Healthy/ }).waitFor(WAIT);
  await page.getByRole('button', { name: 'Workspace' }).click();
}

async function bridgeApi(key: string, method: string, route: string, body?: unknown) {
  const res = await fetch(`${bridge?.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<unknown>;
}

async function expectMemberCard(page: Page, name: string, email: string) {
  const card = page.getByRole('article', { name });
  await expect.poll(() => card.getAttribute('data-state'), WAIT).toBe('ready');
  expect(await card.textContent()).toContain(email);
}

/** The admin console's OrgPicker, fed by the backend's proxy with the host's API key. */
async function pickOrganization(page: Page, name: string) {
  await page.getByRole('button', { name: 'Select an organization' }).click();
  const list = page.getByRole('listbox', { name: 'Organizations' });
  const names = () => list.getByRole('option').allTextContents();
  await expect
    .poll(names, WAIT)
    .toEqual([
      expect.stringContaining('Acme Analytics'),
      expect.stringContaining('Example host app'),
    ]);
  // The production build keeps the dialog's palette (it was transparent over the form).
  const dialog = page.locator('.bk.bk-dialog');
  expect(await dialog.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe(
    'rgb(255, 255, 255)',
  );
  expect(await dialog.evaluate((el) => getComputedStyle(el).borderTopStyle)).toBe('solid');
  await list.getByRole('option', { name }).click();
  await list.waitFor({ state: 'hidden' });
  await expect.poll(() => page.getByTestId('picked-org').textContent(), WAIT).toContain(name);
}

async function addDataSource(page: Page, displayName: string) {
  const form = page.getByRole('form', { name: 'New data source' });
  const primary = form.getByRole('button', { name: 'Save' });
  expect(await primary.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe(
    'rgb(10, 88, 202)',
  );
  await form.getByLabel('Display name').fill(displayName);
  await form.getByLabel('Host', { exact: true }).fill(PG.host);
  await form.getByLabel('Port', { exact: true }).fill(String(PG.port));
  await form.getByLabel('Database').fill(PG.database);
  await form.getByLabel('Username').fill(PG.user);
  await form.getByLabel('Require SSL (TLS)').uncheck();
  await form.getByRole('button', { name: 'Test connection' }).click();
  await form.getByText('Connection verified.').waitFor(WAIT);
  await form.getByRole('button', { name: 'Save' }).click();
  await form.getByText('Saved.').waitFor(WAIT);
  await page.getByRole('list', { name: 'Data sources' }).getByText(displayName).waitFor(WAIT);
}
