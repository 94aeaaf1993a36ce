import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DataSource, Organization } from '@bridgekit/contract';
import { createSsoToken } from '@bridgekit/node';
import axe from 'axe-core';
import express from 'express';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorHandler } from '../../server/src/http/errors';
import { embedRoutes } from '../../server/src/routes/embed';
import { startBridge, type TestBridge } from '../support/bridge';
import { type PgCluster, startPgCluster } from '../support/pg-cluster';
import { launchChromium } from './support/browser';
import { bundlePage } from './support/host-bundle';
import { type HostSite, startHostSite } from './support/host-site';

// The kit in real Chromium against a real bridge (SQLite store) and a real private PostgreSQL
// (TLS, scram) as the data source being verified. Host sites run on http://localhost:<port>,
// the bridge on http://127.0.0.1:<port>: another site, as in production.

const ADA = {
  email: 'ada@host.test',
  firstName: 'Ada',
  lastName: 'Lovelace',
  role: 'ADMIN' as const,
};
const MALLORY = { email: 'mallory@elsewhere.test', firstName: 'Mallory', role: 'ADMIN' as const };
const ORG_COUNT = 120;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WAIT = { timeout: 20_000 };

let bridge: TestBridge;
let pg: PgCluster;
let browser: Browser;
let owner: { key: string };
let org: Organization & { jwtSecret: string };
let seeded: DataSource;
let allowed: HostSite;
let notAllowed: HostSite;
const contexts: BrowserContext[] = [];

async function api(method: string, path: string, body?: unknown) {
  const res = await bridge.request(method, path, { key: owner.key, body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
}

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT.timeout);
  return page;
}

const consoleOf = (page: Page) => {
  const lines: string[] = [];
  page.on('console', (message) => lines.push(message.text()));
  return lines;
};

beforeAll(async () => {
  let bundle: Awaited<ReturnType<typeof bundlePage>>;
  [bridge, pg, browser, bundle] = await Promise.all([
    startBridge('sqlite'),
    startPgCluster({ ssl: true, auth: 'scram-sha-256' }),
    launchChromium(),
    bundlePage(new URL('./fixtures/host-app.tsx', import.meta.url)),
    // The full-embed page's bundle, from the current source (about 2 s).
    promisify(execFile)('npm', ['run', 'build:embed'], { cwd: ROOT }),
  ]);
  owner = await bridge.newUser('owner@host.test');

  // The host sites need their origins before the organization lists one of them.
  const site = (user: typeof ADA | typeof MALLORY) =>
    startHostSite({
      bridgeUrl: bridge.url,
      org: () => org,
      user,
      apiKey: owner.key,
      bundle,
    });
  [allowed, notAllowed] = await Promise.all([site(ADA), site(MALLORY)]);

  const created = await api('POST', '/api/public/organizations?include=jwtSecret', {
    name: 'Acme Analytics',
    fullEmbedEnabled: true,
    // Loopback over http is allowed for development, by name or address, stored normalized.
    embedAllowedOrigins: [`HTTP://LOCALHOST:${allowed.port}/`, `http://127.0.0.1:${allowed.port}`],
  });
  org = Organization.parse(created.data) as Organization & { jwtSecret: string };
  expect(org.embedAllowedOrigins).toEqual([allowed.origin, `http://127.0.0.1:${allowed.port}`]);

  // The host's service account belongs to 120 organizations in all.
  const names = Array.from(
    { length: ORG_COUNT - 1 },
    (_, i) => `Org ${String(i + 2).padStart(3, '0')}`,
  );
  for (let i = 0; i < names.length; i += 10) {
    await Promise.all(
      names.slice(i, i + 10).map((name) => api('POST', '/api/public/organizations', { name })),
    );
  }

  seeded = DataSource.parse(
    (
      await api('POST', `/api/public/organizations/${org.id}/data-sources`, {
        dialect: 'POSTGRES',
        displayName: 'Seeded warehouse',
        host: 'db.internal.test',
        port: 5432,
        username: 'reporting',
        password: 'not-checked-on-create',
      })
    ).data,
  );
}, 120_000);

afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => {});
  await browser?.close();
  await Promise.all([allowed?.close(), notAllowed?.close(), pg?.stop(), bridge?.stop()]);
}, 60_000);

describe('the kit on a host page whose origin the organization allows', () => {
  let page: Page;

  beforeAll(async () => {
    page = await newPage();
    await page.goto(`${allowed.origin}/`);
    await page.getByRole('article', { name: 'Ada Lovelace' }).waitFor(WAIT);
  });

  it('gets a session through POST /api/sso/jwt from the browser', async () => {
    const session = await page.evaluate(() => window.host.session);
    expect(session?.organization.id).toBe(org.id);
    expect(session?.member.user.email).toBe(ADA.email);
    expect(session?.member.role).toBe('ADMIN');
    expect(session?.sessionToken).toBeTruthy();
  });

  it('renders the member in MemberCard', async () => {
    const card = page.getByRole('article', { name: 'Ada Lovelace' });
    expect(await card.getAttribute('data-state')).toBe('ready');
    expect(await card.textContent()).toContain(ADA.email);
    expect(await card.textContent()).toContain('Admin');
  });

  it('puts a wrong password on the password field, then verifies and saves the fixed one', async () => {
    const form = page.getByRole('region', { name: 'New data source' });
    // Real layout: a field in a column is as tall as its label and input (no flex-basis height).
    const field = await form.locator('.bk-field').first().boundingBox();
    expect(field?.height).toBeLessThan(100);
    await form.getByLabel('Display name').fill('Analytics replica');
    await form.getByLabel('Host', { exact: true }).fill(pg.host);
    await form.getByLabel('Port', { exact: true }).fill(String(pg.port));
    await form.getByLabel('Database').fill(pg.database);
    await form.getByLabel('Username').fill(pg.user);
    const password = form.getByLabel('Password', { exact: true });
    await password.fill('not-the-password');
    const verified = page.waitForResponse((r) => r.url().endsWith('/data-sources/verify'));
    await form.getByRole('button', { name: 'Test connection' }).click();
    const answer = await verified;
    expect(answer.status()).toBe(422);
    const { fieldErrors } = (await answer.json()).error as { fieldErrors: Record<string, string> };
    expect(fieldErrors.password).toBeTruthy();

    await expect.poll(() => password.getAttribute('aria-invalid'), WAIT).toBe('true');
    const describedBy = (await password.getAttribute('aria-describedby')) ?? '';
    const message = await page.evaluate(
      (ids) => ids.map((id) => document.getElementById(id)?.textContent ?? '').join(' '),
      describedBy.split(/\s+/).filter(Boolean),
    );
    expect(message).toContain(fieldErrors.password);
    expect(await form.getByRole('alert').isVisible()).toBe(true);
    expect(await form.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);

    await password.fill(pg.password);
    await form.getByRole('button', { name: 'Test connection' }).click();
    await form.getByText('Connection verified.').waitFor(WAIT);
    expect(await password.getAttribute('aria-invalid')).not.toBe('true');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByText('Saved.').waitFor(WAIT);

    const saved = await page.evaluate(() => window.host.saved);
    expect(saved).toHaveLength(1);
    const stored = DataSource.parse(
      (await api('GET', `/api/public/organizations/${org.id}/data-sources/${saved[0]!.id}`)).data,
    );
    expect(stored).toMatchObject({
      displayName: 'Analytics replica',
      host: pg.host,
      port: pg.port,
      databaseName: pg.database,
      username: pg.user,
      sslEnabled: true,
    });
    expect(stored.storedSecrets).toContain('password');
  });

  it('pages OrgPicker through 120 organizations by keyboard, through the host backend', async () => {
    const trigger = page.getByRole('button', { name: 'Select an organization' });
    await trigger.focus();
    await page.keyboard.press('Enter');
    const list = page.getByRole('listbox', { name: 'Organizations' });
    const options = list.getByRole('option');
    await expect.poll(() => options.count(), WAIT).toBe(50);
    const active = () =>
      list.evaluate(
        (el) =>
          document
            .getElementById(el.getAttribute('aria-activedescendant') ?? '')
            ?.querySelector('.bk-org-picker__name')?.textContent,
      );

    await page.keyboard.press('ArrowDown'); // search box → list, on the first option
    expect(await active()).toBe('Acme Analytics');
    await page.keyboard.press('End');
    expect(await active()).toBe('Org 050');
    await page.keyboard.press('ArrowDown'); // past the last loaded option: the next page
    await expect.poll(active, WAIT).toBe('Org 051');
    await page.keyboard.press('End');
    expect(await active()).toBe('Org 100');
    await page.keyboard.press('ArrowDown');
    await expect.poll(active, WAIT).toBe('Org 101');
    await expect.poll(() => options.count(), WAIT).toBe(ORG_COUNT);
    await page.keyboard.press('End');
    expect(await active()).toBe('Org 120');
    await page.keyboard.press('ArrowDown'); // nothing left to load
    expect(await active()).toBe('Org 120');
    await page.keyboard.press('Home');
    expect(await active()).toBe('Acme Analytics');
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');

    await list.waitFor({ state: 'detached' });
    const picked = await page.evaluate(() => window.host.picked);
    expect(await page.locator('.bk-org-picker__current').textContent()).toBe('Org 120');
    expect(picked).toMatch(/^org_/);
    expect(allowed.proxied).toHaveLength(3);
    expect(allowed.proxied[0]).toBe('?limit=50');
    expect(allowed.proxied[1]).toMatch(/^\?limit=50&cursor=org_/);
    // The service API key stays in the host's backend.
    expect(await page.content()).not.toContain(owner.key);
  });
});

describe('the same page on an origin the organization does not allow', () => {
  it('is refused by CORS: the exchange fails in the browser and no session exists', async () => {
    const page = await newPage();
    const log = consoleOf(page);
    const failed: string[] = [];
    page.on('requestfailed', (request) => {
      if (request.url().startsWith(`${bridge.url}/api/sso/jwt`)) failed.push(request.method());
    });
    await page.goto(`${notAllowed.origin}/`);

    const error = page.getByTestId('sign-in-error');
    await error.waitFor(WAIT);
    expect(await error.textContent()).toBe('Sign-in failed: NetworkError (0)');
    expect(await page.evaluate(() => window.host.session)).toBeUndefined();
    expect(failed).toContain('POST');
    expect(log.some((line) => /blocked by CORS policy/.test(line))).toBe(true);
    // The bridge provisioned nobody for the refused origin.
    const members = await api('GET', `/api/public/organizations/${org.id}/members?limit=100`);
    const emails = (members.data as Array<{ user: { email: string } }>).map((m) => m.user.email);
    expect(emails).not.toContain(MALLORY.email);
    expect(await page.getByRole('article').count()).toBe(0);
  });
});

describe('the full-embed page in an iframe', () => {
  const embedFrame = async (page: Page): Promise<Frame> => {
    const handle = await page.locator('iframe[title="Bridgekit"]').elementHandle();
    const frame = await handle?.contentFrame();
    if (!frame) throw new Error('no iframe');
    return frame;
  };

  it('loads on an allowed origin with the data sources and the member, API calls by bearer only', async () => {
    const page = await newPage();
    const log = consoleOf(page);
    const requests: Array<{ url: string; headers: Record<string, string> }> = [];
    page.on('requestfinished', async (request) => {
      requests.push({ url: request.url(), headers: await request.allHeaders() });
    });
    await page.goto(`${allowed.origin}/embed-host`);
    const frame = await embedFrame(page);
    await frame.getByRole('heading', { level: 2, name: 'Data sources' }).waitFor(WAIT);
    await frame.getByText('Seeded warehouse').waitFor(WAIT);
    await frame.getByRole('article', { name: 'Ada Lovelace' }).waitFor(WAIT);

    expect(frame.url()).toBe(`${bridge.url}/embed/orgs/${org.slug}`);
    expect(await frame.getByRole('heading', { level: 1 }).textContent()).toBe('Acme Analytics');
    // The handoff code, not a cookie: nothing of the bridge's is in the browser's cookie jar.
    const session = requests.find((r) => r.url === `${bridge.url}/embed/session`);
    expect(session?.headers.cookie).toBeUndefined();
    expect(session?.headers['x-bridgekit-embed']).toBe('1');
    expect(await page.context().cookies(bridge.url)).toEqual([]);
    const calls = requests.filter((r) => r.url.startsWith(`${bridge.url}/api/public/`));
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect(call.headers.authorization).toMatch(/^Bearer /);
      expect(call.headers.cookie).toBeUndefined();
    }

    await frame.evaluate(axe.source);
    const violations = await frame.evaluate(async () => {
      // biome-ignore lint/suspicious/noExplicitAny: axe is injected into the frame above.
      const result = await (window as any).axe.run(document);
      return (result.violations as Array<{ id: string }>).map((v) => v.id);
    });
    expect(violations).toEqual([]);
    // Nothing on the page needs more than script-src/style-src 'self'.
    expect(log.filter((line) => /Content Security Policy/.test(line))).toEqual([]);
  });

  // A same-origin POST carries `Origin` (the bridge's own): CORS must not refuse the embed page.
  it('adds a data source through the embedded DataSourceForm', async () => {
    const page = await newPage();
    await page.goto(`${allowed.origin}/embed-host`);
    const frame = await embedFrame(page);
    await frame.getByRole('button', { name: 'Add data source' }).click();
    const editor = frame.getByRole('region', { name: 'Add data source' });
    await editor.getByLabel('Display name').fill('Embedded replica');
    await editor.getByLabel('Host', { exact: true }).fill(pg.host);
    await editor.getByLabel('Port', { exact: true }).fill(String(pg.port));
    await editor.getByLabel('Database').fill(pg.database);
    await editor.getByLabel('Username').fill(pg.user);
    await editor.getByLabel('Password', { exact: true }).fill(pg.password);
    await editor.getByRole('button', { name: 'Test connection' }).click();
    const outcome = editor.getByText(
      /^(Connection verified\.|Origin not allowed for this organization)$/,
    );
    await outcome.waitFor(WAIT);
    expect(await outcome.textContent()).toBe('Connection verified.');
    await editor.getByRole('button', { name: 'Save' }).click();
    await frame.getByRole('heading', { name: 'Edit “Embedded replica”' }).waitFor(WAIT);

    const list = frame.getByRole('region', { name: 'Data sources' }).getByRole('listitem');
    // Other tests of this file save into the same organization: require ours, not an exact list.
    await expect
      .poll(() => list.allInnerTexts(), WAIT)
      .toEqual(
        expect.arrayContaining([
          expect.stringContaining('Seeded warehouse'),
          expect.stringContaining('Embedded replica'),
        ]),
      );
    const listed = await api('GET', `/api/public/organizations/${org.id}/data-sources?limit=100`);
    const names = (listed.data as DataSource[]).map((d) => d.displayName);
    expect(names).toContain('Embedded replica');
    expect(names).toContain(seeded.displayName);
  });

  it('locks the page behind the delete dialog, its injected style allowed by the CSP nonce', async () => {
    const page = await newPage();
    const log = consoleOf(page);
    await page.goto(`${allowed.origin}/embed-host`);
    const frame = await embedFrame(page);
    await frame.getByRole('button', { name: `Edit ${seeded.displayName}` }).click();
    await frame.getByRole('button', { name: 'Delete', exact: true }).click();
    const dialog = frame.getByRole('dialog', { name: 'Delete data source?' });
    await dialog.waitFor(WAIT);
    // Radix's scroll lock is a <style> element it adds at run time: under `style-src 'self'`
    // alone the browser refused it and the page behind the dialog kept scrolling.
    expect(await frame.evaluate(() => getComputedStyle(document.body).overflow)).toBe('hidden');
    expect(log.filter((line) => /Content Security Policy/.test(line))).toEqual([]);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ ...WAIT, state: 'detached' });
    expect(await frame.evaluate(() => getComputedStyle(document.body).overflow)).not.toBe('hidden');
  });

  it('is refused in an iframe on an origin that is not allowed (403 page from the sign-in)', async () => {
    const page = await newPage();
    const signIn = page.waitForResponse((r) => r.url().startsWith(`${bridge.url}/api/sso/jwt?`));
    await page.goto(`${notAllowed.origin}/embed-host`);
    expect((await signIn).status()).toBe(403);
    const frame = await embedFrame(page);
    await frame.getByRole('heading', { name: 'Forbidden' }).waitFor(WAIT);
    expect(await frame.getByRole('alert').textContent()).toContain(
      'This page may not be embedded here',
    );
    expect(await frame.getByRole('heading', { name: 'Data sources' }).count()).toBe(0);
  });

  /** A sign-in link as anyone with a valid token for the organization can make one. */
  const signInLink = async () => {
    const jwt = await createSsoToken({ secret: org.jwtSecret, orgId: org.id, user: MALLORY });
    const res = await bridge.request('GET', `/api/sso/jwt?jwt=${encodeURIComponent(jwt)}`, {
      headers: { referer: `${allowed.origin}/reports` },
    });
    expect(res.status).toBe(302);
    return res.headers.get('location') ?? '';
  };
  const redemption = (page: Page) =>
    page.waitForResponse((r) => r.url() === `${bridge.url}/embed/session`);

  it('refuses a sign-in link opened at top level, and burns its code', async () => {
    const link = await signInLink();
    const page = await newPage();
    const redeemed = redemption(page);
    await page.goto(`${bridge.url}${link}`);
    const refused = await redeemed;
    expect(refused.status()).toBe(403);
    expect((await refused.json()).error).toMatchObject({
      title: 'Forbidden',
      code: 'embed_framing_required',
    });
    await page.getByRole('heading', { name: 'Could not sign in' }).waitFor(WAIT);
    expect(await page.getByRole('heading', { name: 'Data sources' }).count()).toBe(0);
    expect(await page.evaluate(() => JSON.stringify(sessionStorage))).not.toContain('eyJ');
    // The same link framed where it was meant to be gets nothing either: the code is burnt.
    const framed = await newPage();
    const again = redemption(framed);
    await framed.goto(`${allowed.origin}/embed-link?path=${encodeURIComponent(link)}`);
    expect((await again).status()).toBe(401);
    const frame = await embedFrame(framed);
    await frame.getByRole('heading', { name: 'Could not sign in' }).waitFor(WAIT);
  });

  it('signs in with a fresh link inside an allowed host page’s iframe (control)', async () => {
    const link = await signInLink();
    const page = await newPage();
    const redeemed = redemption(page);
    await page.goto(`${allowed.origin}/embed-link?path=${encodeURIComponent(link)}`);
    expect((await redeemed).status()).toBe(200);
    const frame = await embedFrame(page);
    await frame.getByRole('heading', { level: 2, name: 'Data sources' }).waitFor(WAIT);
    await frame.getByRole('article', { name: 'Mallory' }).waitFor(WAIT);
  });

  it('keeps the embed page itself out of a frame on that origin (CSP frame-ancestors)', async () => {
    const page = await newPage();
    const log = consoleOf(page);
    const response = page.waitForResponse(
      (r) => r.url() === `${bridge.url}/embed/orgs/${org.slug}`,
    );
    await page.goto(`${notAllowed.origin}/embed-direct`);
    expect((await response).headers()['content-security-policy']).toContain(
      `frame-ancestors ${allowed.origin}`,
    );
    await expect.poll(() => log.some((line) => /frame-ancestors/.test(line)), WAIT).toBe(true);
    const frame = await embedFrame(page);
    expect(frame.url()).toBe('chrome-error://chromewebdata/');
    expect(await frame.getByText('Acme Analytics').count()).toBe(0);
  });
});

describe('the embed bundle over HTTP', () => {
  const csp = (res: { headers: Headers }) =>
    (res.headers.get('content-security-policy') ?? '').split(/;\s*/);

  it.each([
    ['embed.js', 'text/javascript; charset=utf-8'],
    ['embed.css', 'text/css; charset=utf-8'],
  ])('serves %s as %s with nosniff, revalidated by Last-Modified', async (file, type) => {
    const res = await bridge.request('GET', `/embed/assets/${file}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(type);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.text.length).toBeGreaterThan(1000);
    const modified = res.headers.get('last-modified');
    expect(modified).toBeTruthy();
    const again = await bridge.request('GET', `/embed/assets/${file}`, {
      // As a browser revalidates (fetch would add `no-cache`, which forces a full answer).
      headers: { 'if-modified-since': modified!, 'cache-control': 'max-age=0' },
    });
    expect(again.status).toBe(304);
  });

  it.each([
    'embed.js.map',
    'index.html',
    'EMBED.JS',
    '..%2F..%2F..%2Fpackage.json',
    '%2e%2e%2fembed%2fembed.js',
    '..%5C..%5Cpackage.json',
    '.embed.js',
  ])('answers 404 for %s: only the built files are served', async (file) => {
    const res = await bridge.request('GET', `/embed/assets/${file}`);
    expect(res.status).toBe(404);
    expect(res.body.error.title).toBe('NotFound');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it("sends the page with only 'self' scripts and styles, and no inline ones", async () => {
    const load = () => bridge.request('GET', `/embed/orgs/${org.slug}`);
    const res = await load();
    expect(res.status).toBe(200);
    expect(csp(res)).toContain("script-src 'self'");
    // Styles: 'self', and the run-time <style> of the app carrying this response's nonce.
    const nonce = /^style-src 'self' 'nonce-([A-Za-z0-9+/]{22}==)'$/.exec(
      csp(res).find((d) => d.startsWith('style-src')) ?? '',
    )?.[1];
    expect(nonce).toBeDefined();
    expect(res.text).toContain(`<meta name="csp-nonce" content="${nonce}">`);
    const again = await load();
    expect(again.text).not.toContain(nonce);
    expect(csp(res)).toContain(
      `frame-ancestors ${allowed.origin} http://127.0.0.1:${allowed.port}`,
    );
    expect(res.text).toContain('<script type="module" src="/embed/assets/embed.js"></script>');
    expect(res.text).toContain('<link rel="stylesheet" href="/embed/assets/embed.css">');
    expect(res.text).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(res.text).not.toContain('<style');
    expect(res.text).not.toMatch(/\sstyle=/);
  });

  describe('when the bundle is not built', () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'bk-no-embed-'));
    let url: string;
    let close: () => void;

    beforeAll(async () => {
      const app = express();
      const router = express.Router();
      embedRoutes(router, bridge.deps, { assetsDir: empty });
      app.use(router);
      app.use(errorHandler);
      const server = await new Promise<Server>((resolve) => {
        const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
      });
      const address = server.address();
      url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      close = () => server.close();
    });
    afterAll(() => {
      close?.();
      rmSync(empty, { recursive: true, force: true });
    });

    it('still renders the page shell, with a clear message and no script', async () => {
      const res = await fetch(`${url}/embed/orgs/${org.slug}`);
      const html = await res.text();
      expect(res.status).toBe(200);
      expect(html).toContain('its app is not built. Run <code>npm run build:embed</code>');
      expect(html).not.toContain('<script');
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    });

    it('answers 404 for the assets', async () => {
      const res = await fetch(`${url}/embed/assets/embed.js`);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: { title: string } }).error.title).toBe('NotFound');
    });
  });
});
