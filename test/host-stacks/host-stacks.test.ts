import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createSsoToken, exchangeSsoToken } from '@bridgekit/node';
import axe from 'axe-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { contrast } from '../../packages/react/src/provider/accent';
import { launchChromium } from '../e2e/support/browser';
import { stopGroup } from '../e2e/support/process-group';
import { cleanEnv, type Run, run } from '../pack/support/host-app';
import { type BridgeProcess, startBridgeProcess } from '../support/bridge-process';
import { freePort } from '../support/free-port';
import { waitFor } from '../support/wait';
import { type AppSpec, installRoot, scaffold, writeApp } from './support/apps';

// The kit as hosts really build it: the four packed tarballs installed once with every stack's
// dependencies, apps made by each stack's own CLI, built for production (Vite 8; Next.js 16
// App Router with Turbopack and with webpack: a Server Component page importing the kit, a
// route handler using @bridgekit/node; Tailwind v4 before and after the kit; Bootstrap 5),
// served, and driven in Chromium against a real bridge, in light and dark, with axe.

const MINUTES = 60_000;
const APPS: AppSpec[] = [
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

const PALETTE = {
  light: { bg: 'rgb(255, 255, 255)', accent: 'rgb(15, 118, 110)' },
  dark: { bg: 'rgb(13, 17, 23)', accent: 'rgb(51, 139, 132)' },
};

interface Served {
  spec: AppSpec;
  origin: string;
  port: number;
  child?: ChildProcess;
  output: string;
}

let tmp: string;
let bridge: BridgeProcess;
let orgId: string;
let jwtSecret: string;
let browser: Browser;
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
  for (const spec of APPS) served.push({ spec, port: await freePort(), origin: '', output: '' });
  for (const app of served) app.origin = `http://127.0.0.1:${app.port}`;

  bridge = await startBridgeProcess();
  const key = await bridge.cli('keys', 'create', '--email', 'owner@host.test');
  const res = await fetch(`${bridge.url}/api/public/organizations?include=jwtSecret`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Stacks', embedAllowedOrigins: served.map((a) => a.origin) }),
  });
  const { data } = (await res.json()) as { data: { id: string; jwtSecret: string } };
  ({ id: orgId, jwtSecret } = data);

  // Packed once per run by the pack layer's global setup (test/pack/support/packed.ts).
  const { dir: tarballs, packed } = inject('tarballs');
  const install = await timed('install', () =>
    installRoot(
      root,
      packed.map((p) => path.join(tarballs, p.filename)),
    ),
  );
  expectOk(install, 'npm install');
  const templates = path.join(root, 'templates');
  mkdirSync(templates);
  for (const stack of ['vite', 'next'] as const) {
    expectOk(
      await timed(`create ${stack}`, () => scaffold(stack, path.join(templates, stack))),
      stack,
    );
  }
  for (const app of served) {
    const dir = path.join(root, 'apps', app.spec.name);
    writeApp(app.spec, path.join(templates, app.spec.stack), dir, root);
    expectOk(
      await timed(`build ${app.spec.name}`, () => build(app.spec, dir, root)),
      app.spec.name,
    );
    app.child = serve(app, dir, root);
  }
  await Promise.all(
    served.map((app) =>
      waitFor(() => fetch(app.origin).then((r) => r.ok), {
        timeoutMs: 60_000,
        what: `${app.spec.name} on ${app.origin}: ${app.output}`,
      }),
    ),
  );
  browser = await launchChromium();
}, 30 * MINUTES);

afterAll(async () => {
  await browser?.close();
  await Promise.all(served.map((app) => stopGroup(app.child, 5_000)));
  await bridge?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  console.log(
    `host stacks: ${Math.round((Date.now() - started) / 1000)} s in all; steps (ms): ${JSON.stringify(timings)}`,
  );
});

function build(spec: AppSpec, dir: string, root: string): Promise<Run> {
  const bin = (name: string) => path.join(root, 'node_modules/.bin', name);
  const env = cleanEnv({
    VITE_BRIDGE_URL: bridge.url,
    VITE_ORG_ID: orgId,
    NEXT_PUBLIC_BRIDGE_URL: bridge.url,
    NEXT_PUBLIC_ORG_ID: orgId,
    NEXT_TELEMETRY_DISABLED: '1',
  });
  if (spec.stack === 'vite') return run(bin('vite'), ['build'], dir, env);
  return run(bin('next'), ['build', ...(spec.webpack ? ['--webpack'] : [])], dir, env);
}

function serve(app: Served, dir: string, root: string): ChildProcess {
  const bin = path.join(root, 'node_modules/.bin', app.spec.stack === 'vite' ? 'vite' : 'next');
  const args =
    app.spec.stack === 'vite'
      ? ['preview', '--host', '127.0.0.1', '--port', String(app.port), '--strictPort']
      : ['start', '-H', '127.0.0.1', '-p', String(app.port)];
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
  child.stdout?.on('data', (chunk) => (app.output += chunk));
  child.stderr?.on('data', (chunk) => (app.output += chunk));
  return child;
}

/** The app's page, signed in: Vite apps get a session token in the fragment. */
async function openApp(
  app: Served,
  scheme: 'light' | 'dark',
): Promise<{ page: Page; logs: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1100, height: 1000 } });
  page.setDefaultTimeout(30_000);
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
  await page.goto(`${app.origin}/${hash}`);
  await page.evaluate((s) => {
    if (s === 'dark') document.documentElement.dataset.bkTheme = 'dark';
  }, scheme);
  await page.waitForSelector('form.bk-data-source-form[data-state="idle"]');
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

describe.each(APPS.map((spec) => [spec.name, spec] as const))('%s', (name, spec) => {
  const app = () => served.find((a) => a.spec.name === name)!;

  it.each(['light', 'dark'] as const)(
    'keeps the kit styled and accessible in %s',
    async (scheme) => {
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

  if (spec.stack === 'next') {
    it("renders the kit's loading state on the server", async () => {
      const html = await (await fetch(app().origin)).text();
      expect(html).toMatch(/class="bk bk-data-source-form"[^>]*data-state="loading"/);
      expect(html).toContain('bk-org-picker');
    });
  }
});
