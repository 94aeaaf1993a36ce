import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_CSS } from '../support/hostile-css';
import { launchChromium } from './support/browser';
import { type Bundle, bundlePage } from './support/host-bundle';
import { send, startHttpServer, type TestServer } from './support/http-server';
import { snapshot } from './support/kit-snapshot';

// The kit's CSS in real Chromium, in a host page: host element rules must not change it, host
// rules that target it must win, and a theme (CSS variables on any ancestor, or the provider's
// `theme`) must reach every element, the portalled dialogs included.

/** Host rules that mean the kit: a class, a container, or !important. */
const TARGETED = `
.host-panel .bk-button { border-radius: 0px; }
.bk-field__label { color: rgb(0, 128, 0); }
button { text-transform: uppercase !important; }
`;

const ROOT_VARS = ':root { --bk-color-accent: rgb(0, 110, 60); --bk-radius: 3px; }';
const SHEETS: Record<string, string> = {
  hostile: HOSTILE_CSS,
  targeted: TARGETED,
  root: ROOT_VARS,
};

let bundle: Bundle;
let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  [bundle, browser] = await Promise.all([
    bundlePage(new URL('./fixtures/kit-page.tsx', import.meta.url)),
    launchChromium(),
  ]);
  server = await startHttpServer((_req, res, url) => {
    if (url.pathname === '/app.js') return send(res, 200, 'text/javascript', bundle.js);
    if (url.pathname === '/app.css') return send(res, 200, 'text/css', bundle.css);
    if (url.pathname === '/host.css') {
      return send(res, 200, 'text/css', SHEETS[url.searchParams.get('sheet') ?? ''] ?? '');
    }
    const sheet = encodeURIComponent(url.searchParams.get('sheet') ?? '');
    send(
      res,
      200,
      'text/html; charset=utf-8',
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host</title>
      <link rel="stylesheet" href="/app.css"><link rel="stylesheet" href="/host.css?sheet=${sheet}">
      </head><body><div id="root"></div><script type="module" src="/app.js"></script></body></html>`,
    );
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

interface PageCase {
  sheet?: string;
  theme?: object;
  panel?: Record<string, string>;
  panelTheme?: string;
}

async function openPage(options: PageCase = {}): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1024, height: 900 } });
  page.setDefaultTimeout(15_000);
  const query = new URLSearchParams();
  if (options.sheet) query.set('sheet', options.sheet);
  if (options.theme) query.set('theme', JSON.stringify(options.theme));
  if (options.panel) query.set('panel', JSON.stringify(options.panel));
  if (options.panelTheme) query.set('panelTheme', options.panelTheme);
  await page.goto(`${server.origin}/?${query}`);
  await page.waitForSelector('form.bk-data-source-form[data-state="idle"]');
  return page;
}

/** Test connection, which the fake bridge refuses on Port: the summary and the field error. */
async function showErrors(page: Page) {
  await page.getByRole('button', { name: 'Test connection' }).click();
  await page.waitForSelector('.bk-field__error');
}

async function openPicker(page: Page) {
  await page.locator('.bk-org-picker').click();
  await page.waitForSelector('.bk-org-picker__option');
}

async function openDelete(page: Page) {
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await page.waitForSelector('.bk-dialog');
}

const computed = (page: Page, selector: string, property: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((el, p) => getComputedStyle(el).getPropertyValue(p), property);

describe('the kit under a hostile host stylesheet', () => {
  let plain: Page;
  let hostile: Page;
  const both = async (step: (page: Page) => Promise<unknown>) => {
    await Promise.all([step(plain), step(hostile)]);
  };
  const compare = async (selector: string) => {
    const [expected, actual] = await Promise.all([
      snapshot(plain, selector),
      snapshot(hostile, selector),
    ]);
    expect(actual.length).toBeGreaterThan(3);
    expect(actual).toEqual(expected);
  };

  beforeAll(async () => {
    [plain, hostile] = await Promise.all([openPage(), openPage({ sheet: 'hostile' })]);
  });
  afterAll(async () => {
    await plain?.close();
    await hostile?.close();
  });

  it('lays out and styles every element of the form, card and trigger as without it', async () => {
    await both(showErrors);
    await compare('.bk.bk-data-source-form');
    await compare('.bk.bk-member-card');
    await compare('.bk.bk-org-picker');
  });

  it('keeps buttons rounded like inputs, in their case, and primary unlike secondary', async () => {
    const radius = await computed(hostile, '.bk-button', 'border-top-left-radius');
    expect(radius).toBe('8px');
    expect(await computed(hostile, '.bk-input', 'border-top-left-radius')).toBe(radius);
    expect(await computed(hostile, '.bk-button', 'text-transform')).toBe('none');
    expect(await computed(hostile, '.bk-field__label', 'text-transform')).toBe('none');
    const primary = await computed(hostile, '.bk-button--primary', 'background-color');
    const secondary = await computed(
      hostile,
      '.bk-button:not(.bk-button--primary)',
      'background-color',
    );
    expect(primary).toBe('rgb(10, 88, 202)');
    expect(secondary).not.toBe(primary);
  });

  it('keeps the gap between a label and its input', async () => {
    const gap = (page: Page) =>
      page.evaluate(() => {
        const label = document.querySelector('label[for$="-host"]')!.getBoundingClientRect();
        const input = document.querySelector('input[id$="-host"]')!.getBoundingClientRect();
        return input.top - label.bottom;
      });
    expect(await gap(hostile)).toBe(await gap(plain));
    expect(await gap(hostile)).toBeLessThanOrEqual(6);
  });

  it('lays out the portalled OrgPicker dialog as without it', async () => {
    await both(openPicker);
    await compare('.bk.bk-dialog');
    await both((page) => page.keyboard.press('Escape'));
  });

  it('lays out the portalled delete dialog as without it', async () => {
    await both(openDelete);
    await compare('.bk.bk-dialog');
    expect(await computed(hostile, '.bk-dialog__title', 'font-size')).toBe('18.75px');
    await both((page) => page.keyboard.press('Escape'));
  });
});

describe('host rules that target the kit', () => {
  it('win: a class, a container, or !important', async () => {
    const page = await openPage({ sheet: 'targeted' });
    expect(await computed(page, '.bk-button', 'border-top-left-radius')).toBe('0px');
    expect(await computed(page, '.bk-input', 'border-top-left-radius')).toBe('8px');
    expect(await computed(page, '.bk-field__label', 'color')).toBe('rgb(0, 128, 0)');
    expect(await computed(page, '.bk-button', 'text-transform')).toBe('uppercase');
    await page.close();
  });
});

describe('a theme reaches every element, dialogs included', () => {
  const DARK_BG = 'rgb(13, 17, 23)';
  const ROSE = 'rgb(190, 24, 93)';

  async function expectThemed(page: Page, accent: string, radius: string, font: RegExp) {
    expect(await computed(page, '.bk-button--primary', 'background-color')).toBe(accent);
    expect(await computed(page, '.bk-input', 'border-top-left-radius')).toBe(radius);
    expect(await computed(page, '.bk.bk-org-picker', 'font-family')).toMatch(font);
    expect(await computed(page, '.bk.bk-org-picker', 'border-top-left-radius')).toBe(radius);
    await openPicker(page);
    expect(await computed(page, '.bk.bk-dialog', 'font-family')).toMatch(font);
    expect(await computed(page, '.bk.bk-dialog', 'border-top-left-radius')).toBe(radius);
    expect(
      await computed(page, '.bk-org-picker__option[aria-selected="true"]', 'box-shadow'),
    ).toContain(accent);
    await page.keyboard.press('Escape');
    await openDelete(page);
    expect(await computed(page, '.bk.bk-dialog .bk-button', 'border-top-left-radius')).toBe(radius);
    expect(await computed(page, '.bk.bk-dialog', 'font-family')).toMatch(font);
    return computed(page, '.bk.bk-dialog', 'background-color');
  }

  it('from CSS variables and data-bk-theme on a wrapper', async () => {
    const page = await openPage({
      panel: {
        '--bk-color-accent': ROSE,
        '--bk-radius': '0px',
        '--bk-font': 'Georgia, serif',
      },
      panelTheme: 'dark',
    });
    expect(await computed(page, '.bk.bk-data-source-form', 'background-color')).toBe(DARK_BG);
    expect(await expectThemed(page, ROSE, '0px', /Georgia/)).toBe(DARK_BG);
    await page.close();
  });

  it('from CSS variables on :root', async () => {
    const page = await openPage({ sheet: 'root' });
    const background = await expectThemed(page, 'rgb(0, 110, 60)', '3px', /system-ui/);
    expect(background).toBe('rgb(255, 255, 255)');
    await page.close();
  });

  it("from BridgeProvider's theme: accent, radius, font, color scheme and density", async () => {
    const page = await openPage({
      theme: {
        accent: '#be185d',
        radius: 0,
        font: 'Georgia, serif',
        colorScheme: 'dark',
        density: 'compact',
      },
    });
    expect(await computed(page, '.bk.bk-member-card', 'background-color')).toBe(DARK_BG);
    expect(await computed(page, '.bk-input', 'min-height')).toBe('30.6px');
    // The accent lightened for the dark palette (accent.ts): #be185d is 3.13:1 there.
    const ROSE_ON_DARK = 'rgb(206, 82, 134)';
    expect(await expectThemed(page, ROSE_ON_DARK, '0px', /Georgia/)).toBe(DARK_BG);
    await page.close();
  });
});
