import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import axe from 'axe-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DOCS_CSP } from '../../server/src/routes/docs-page';
import { startBridge, type TestBridge } from '../support/bridge';
import { launchChromium } from './support/browser';

// The API reference in real Chromium, served by a real bridge (SQLite store) that logs at
// `trace`, its most verbose level: the page loads from the bridge alone under its CSP, passes
// axe, reads at phone and desktop widths, and calls the bridge with a key pasted into it.

const SHOTS = fileURLToPath(new URL('../../test-results/docs/', import.meta.url));
const WAIT = { timeout: 20_000 };

interface Violation {
  directive: string;
  blocked: string;
  source: string;
}

let bridge: TestBridge;
let browser: Browser;
let key: string;
const contexts: BrowserContext[] = [];

/** A fresh page recording every request it makes and every CSP violation it reports. */
async function openDocs(width: number, hash = '') {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT.timeout);
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  await page.addInitScript(() => {
    const seen: Violation[] = [];
    Object.assign(window, { __violations: seen });
    document.addEventListener('securitypolicyviolation', (e) =>
      seen.push({ directive: e.violatedDirective, blocked: e.blockedURI, source: e.sourceFile }),
    );
  });
  const response = await page.goto(`${bridge.url}/docs${hash}`);
  await page.getByRole('heading', { name: 'Bridgekit public API', level: 1 }).waitFor();
  // Rendered: the first operation is on the page.
  await page
    .getByRole('heading', { name: 'List the organizations the caller belongs to' })
    .waitFor();
  const violations = () =>
    page.evaluate(() => (window as unknown as { __violations: Violation[] }).__violations);
  return { page, requests, violations, csp: response?.headers()['content-security-policy'] };
}

async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
  return page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe was injected just above.
    const run = (window as any).axe.run as (c: unknown) => Promise<axe.AxeResults>;
    const result = await run(document);
    return result.violations.map(
      (v) =>
        `${v.id}: ${v.nodes.map((n) => `${n.target.join(' ')} (${n.failureSummary})`).join('; ')}`,
    );
  });
}

beforeAll(async () => {
  [bridge, browser] = await Promise.all([
    startBridge('sqlite', { LOG_LEVEL: 'trace' }),
    launchChromium(),
  ]);
  ({ key } = await bridge.newUser('reader@example.com'));
  mkdirSync(SHOTS, { recursive: true });
});

afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  await bridge?.stop();
});

describe('the API reference page', () => {
  // One load at desktop width for the first three tests; the last of them plants a violation.
  let desktop: Awaited<ReturnType<typeof openDocs>>;
  beforeAll(async () => {
    desktop = await openDocs(1280);
  });

  it('loads everything from the bridge, under its CSP', async () => {
    const { requests, violations, csp } = desktop;
    expect(csp).toBe(DOCS_CSP);
    expect(requests.filter((url) => !url.startsWith(`${bridge.url}/`))).toEqual([]);
    expect(requests).toContain(`${bridge.url}/docs/assets/scalar.js`);
    expect(requests).toContain(`${bridge.url}/api/public/openapi.json`);
    // The one refusal: the bundle's zod probes `Function('')`, is refused, and validates
    // without compiling. Anything else blocked would be a feature that does not work.
    const refused = (await violations()).filter(
      (v) => !(v.directive === 'script-src' && v.blocked === 'eval'),
    );
    expect(refused).toEqual([]);
  });

  it('passes axe', async () => {
    expect(await axeViolations(desktop.page)).toEqual([]);
  });

  it('would notice an axe violation', async () => {
    const { page } = desktop;
    await page.evaluate(() => document.body.insertAdjacentHTML('beforeend', '<input>'));
    expect((await axeViolations(page)).join('\n')).toMatch(/^label:/m);
  });

  it.each([375, 1280])(
    'reads at %i px wide without sideways scrolling',
    async (width) => {
      const { page } = await openDocs(width);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        width,
      );
      await page.screenshot({ path: `${SHOTS}docs-${width}.png` });
      const operation = await openDocs(width, '#tag/organizations/POST/api/public/organizations');
      const heading = operation.page.getByRole('heading', { name: /^Create an organization/ });
      await heading.waitFor();
      await expect
        .poll(() => heading.evaluate((h) => h.getBoundingClientRect().top))
        .toBeLessThan(200);
      // The operation's own curl sample (x-codeSamples) is the one shown.
      await operation.page.getByText('Authorization: Bearer $BRIDGEKIT_API_KEY').first().waitFor();
      await operation.page.screenshot({ path: `${SHOTS}docs-operation-${width}.png` });
      // Two page loads, each with waits of up to 20 s: 16-23 s on a loaded machine.
    },
    90_000,
  );
});

describe('try it', () => {
  it('calls the bridge with a pasted key, which stays in the page and out of the logs', async () => {
    const { page } = await openDocs(1280);
    await page.getByLabel('Bearer Token').first().fill(key);
    await page
      .getByRole('button', { name: /Test Request/ })
      .first()
      .click();
    const answered = page.waitForResponse((r) => r.url().startsWith(`${bridge.url}/api/public/`));
    await page.getByRole('button', { name: /^Send/ }).first().click();
    const response = await answered;
    expect(response.status()).toBe(200);
    expect(await response.request().headerValue('authorization')).toBe(`Bearer ${key}`);
    await page.getByText('200 OK').first().waitFor();
    await page.screenshot({ path: `${SHOTS}try-it-1280.png` });

    // Kept in memory only: not in storage, cookies or IndexedDB.
    const stored = await page.evaluate(async () =>
      JSON.stringify({
        local: { ...localStorage },
        session: { ...sessionStorage },
        cookies: document.cookie,
        databases: await indexedDB.databases(),
      }),
    );
    expect(stored).not.toContain(key);
    const requestId = await response.headerValue('x-request-id');
    await vi.waitFor(() => expect(bridge.logs.join('\n')).toContain(requestId));
    const logged = bridge.logs.join('\n');
    expect(logged).not.toContain(key);
    expect(logged).not.toContain(key.slice('bk_key_'.length));
  });
});
