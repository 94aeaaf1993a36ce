import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contrast } from '../../packages/react/src/provider/accent';
import { launchChromium } from './support/browser';
import { type Bundle, bundlePage } from './support/host-bundle';
import { bootstrapCss, productionCss, tailwindCss } from './support/host-css';
import { send, startHttpServer, type TestServer } from './support/http-server';

// The kit's CSS as hosts really ship it, in Chromium: after a production CSS pipeline (Lightning
// CSS, as `vite build` and `next build` run it), next to Tailwind v4 (its preflight strips
// buttons and inputs) and Bootstrap 5 loaded before or after the kit, with the page's font, and
// with a brand accent in light and dark.

const WHITE = 'rgb(255, 255, 255)';
const DARK_BG = 'rgb(13, 17, 23)';
const KIT_ACCENT = 'rgb(10, 88, 202)';
/** Tailwind's own line; with `bridgekit` placed, as docs/component-kit.md tells a host. */
const HOST_LAYER_ORDER = '@layer theme, base, bridgekit, components, utilities;\n';

let bundle: Bundle;
let sheets: Record<string, string>;
let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  let tailwind: string;
  [bundle, browser, tailwind] = await Promise.all([
    bundlePage(new URL('./fixtures/kit-page.tsx', import.meta.url)),
    launchChromium(),
    tailwindCss(['rounded-none']),
  ]);
  sheets = {
    tailwind,
    'tailwind-ordered': HOST_LAYER_ORDER + tailwind,
    bootstrap: bootstrapCss(),
    georgia: 'body { font-family: Georgia, serif; }',
  };
  server = await startHttpServer((_req, res, url) => {
    const css = (text: string) =>
      send(res, 200, 'text/css', url.searchParams.has('production') ? productionCss(text) : text);
    if (url.pathname === '/app.js') return send(res, 200, 'text/javascript', bundle.js);
    if (url.pathname === '/app.css') return css(bundle.css);
    if (url.pathname === '/host.css') return css(sheets[url.searchParams.get('sheet') ?? ''] ?? '');
    const production = url.searchParams.has('production') ? '?production' : '';
    const kit = `<link rel="stylesheet" href="/app.css${production}">`;
    const host = `<link rel="stylesheet" href="/host.css?sheet=${encodeURIComponent(
      url.searchParams.get('sheet') ?? '',
    )}${production ? '&production' : ''}">`;
    const links = url.searchParams.get('order') === 'host-first' ? host + kit : kit + host;
    send(
      res,
      200,
      'text/html; charset=utf-8',
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host</title>${links}
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
  order?: 'kit-first' | 'host-first';
  production?: boolean;
  theme?: object;
  panelTheme?: string;
  cardClass?: string;
  media?: 'light' | 'dark';
}

async function openPage(options: PageCase = {}): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1024, height: 900 } });
  page.setDefaultTimeout(15_000);
  if (options.media) await page.emulateMedia({ colorScheme: options.media });
  const query = new URLSearchParams();
  for (const key of ['sheet', 'order', 'panelTheme', 'cardClass'] as const) {
    const value = options[key];
    if (value) query.set(key, value);
  }
  if (options.production) query.set('production', '');
  if (options.theme) query.set('theme', JSON.stringify(options.theme));
  await page.goto(`${server.origin}/?${query}`);
  await page.waitForSelector('form.bk-data-source-form[data-state="idle"]');
  return page;
}

const computed = (page: Page, selector: string, property: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((el, p) => getComputedStyle(el).getPropertyValue(p), property);

/** `rgb(r, g, b)` as computed styles give it, as [r, g, b]. */
const rgbOf = (colour: string) => {
  const channels = /^rgb\((\d+), (\d+), (\d+)\)$/.exec(colour);
  if (!channels) throw new Error(`not an opaque rgb() colour: ${colour}`);
  return channels.slice(1).map(Number);
};

/** The WCAG contrast of an element's text on its own background. */
async function textContrast(page: Page, selector: string) {
  const [fg, bg] = await Promise.all([
    computed(page, selector, 'color'),
    computed(page, selector, 'background-color'),
  ]);
  return contrast(rgbOf(fg), rgbOf(bg));
}

/** Styled controls: the primary button filled with the accent, bordered inputs, padded buttons. */
async function expectControlsStyled(page: Page, background: string, accent: string) {
  expect(await computed(page, '.bk.bk-data-source-form', 'background-color')).toBe(background);
  expect(await computed(page, '.bk-button--primary', 'background-color')).toBe(accent);
  expect(await textContrast(page, '.bk-button--primary')).toBeGreaterThanOrEqual(4.5);
  expect(await computed(page, '.bk-button--primary', 'border-top-left-radius')).toBe('8px');
  expect(await computed(page, '.bk-button--primary', 'padding-left')).toBe('14px');
  expect(await computed(page, '.bk-input', 'border-top-width')).toBe('1px');
  expect(await computed(page, '.bk-input', 'border-top-style')).toBe('solid');
  expect(await computed(page, '.bk-input', 'border-top-color')).not.toBe('rgba(0, 0, 0, 0)');
  expect(await computed(page, '.bk-input', 'background-color')).toBe(background);
  expect(await computed(page, '.bk.bk-member-card', 'border-top-width')).toBe('1px');
}

/** The OrgPicker's portalled dialog: an opaque background of the palette, and a border. */
async function expectDialogOpaque(page: Page, background: string) {
  await page.locator('.bk-org-picker').click();
  await page.waitForSelector('.bk-org-picker__option');
  expect(await computed(page, '.bk.bk-dialog', 'background-color')).toBe(background);
  expect(await computed(page, '.bk.bk-overlay', 'background-color')).not.toBe('rgba(0, 0, 0, 0)');
  expect(await textContrast(page, '.bk.bk-dialog')).toBeGreaterThanOrEqual(4.5);
  await page.keyboard.press('Escape');
}

describe('after a production CSS pipeline (Lightning CSS, lowered light-dark())', () => {
  it('keeps every colour without a colorScheme: light', async () => {
    const page = await openPage({ production: true });
    await expectControlsStyled(page, WHITE, KIT_ACCENT);
    await expectDialogOpaque(page, WHITE);
    await page.close();
  });

  it('is dark with colorScheme dark, and with data-bk-theme="dark" on a host wrapper', async () => {
    for (const options of [{ theme: { colorScheme: 'dark' } }, { panelTheme: 'dark' }]) {
      const page = await openPage({ production: true, ...options });
      await expectControlsStyled(page, DARK_BG, 'rgb(88, 166, 255)');
      await expectDialogOpaque(page, DARK_BG);
      await page.close();
    }
  });

  it('follows the system with colorScheme auto', async () => {
    for (const [media, background] of [
      ['light', WHITE],
      ['dark', DARK_BG],
    ] as const) {
      const page = await openPage({ production: true, theme: { colorScheme: 'auto' }, media });
      expect(await computed(page, '.bk.bk-data-source-form', 'background-color')).toBe(background);
      await expectDialogOpaque(page, background);
      await page.close();
    }
  });
});

describe('next to Tailwind v4 and Bootstrap 5, loaded before or after the kit', () => {
  for (const sheet of ['tailwind', 'bootstrap']) {
    for (const order of ['kit-first', 'host-first'] as const) {
      it(`keeps the kit's controls under ${sheet}, ${order}`, async () => {
        const page = await openPage({ sheet, order, production: true });
        await expectControlsStyled(page, WHITE, KIT_ACCENT);
        await expectDialogOpaque(page, WHITE);
        expect(await computed(page, '.bk-field__label', 'margin-bottom')).toBe('0px');
        await page.close();
      });
    }
  }

  it('lets a Tailwind utility override the kit when the kit comes first', async () => {
    const page = await openPage({ sheet: 'tailwind', cardClass: 'rounded-none' });
    expect(await computed(page, '.bk.bk-member-card', 'border-top-left-radius')).toBe('0px');
    await page.close();
  });

  it("lets it override with Tailwind first once the host's layer line places bridgekit", async () => {
    const unordered = await openPage({
      sheet: 'tailwind',
      order: 'host-first',
      cardClass: 'rounded-none',
    });
    expect(await computed(unordered, '.bk.bk-member-card', 'border-top-left-radius')).not.toBe(
      '0px',
    );
    await unordered.close();
    const page = await openPage({
      sheet: 'tailwind-ordered',
      order: 'host-first',
      cardClass: 'rounded-none',
    });
    expect(await computed(page, '.bk.bk-member-card', 'border-top-left-radius')).toBe('0px');
    await expectControlsStyled(page, WHITE, KIT_ACCENT);
    await page.close();
  });
});

describe("theme.font: 'inherit'", () => {
  it("takes the host page's font on every root, control and dialog", async () => {
    const page = await openPage({ sheet: 'georgia', theme: { font: 'inherit' } });
    for (const selector of [
      '.bk.bk-data-source-form',
      '.bk-button',
      '.bk-input',
      '.bk.bk-org-picker',
    ]) {
      expect(await computed(page, selector, 'font-family'), selector).toMatch(/^Georgia/);
    }
    await page.locator('.bk-org-picker').click();
    expect(await computed(page, '.bk.bk-dialog', 'font-family')).toMatch(/^Georgia/);
    await page.close();
  });

  it('leaves the kit in its own font without it', async () => {
    const page = await openPage({ sheet: 'georgia' });
    expect(await computed(page, '.bk-button', 'font-family')).toMatch(/^system-ui/);
    await page.close();
  });
});

describe('a brand accent, in light and dark', () => {
  it('is used as given in light, with a readable label', async () => {
    const page = await openPage({ production: true, theme: { accent: '#0f766e' } });
    await expectControlsStyled(page, WHITE, 'rgb(15, 118, 110)');
    expect(await computed(page, '.bk-button--primary', 'color')).toBe(WHITE);
    await page.close();
  });

  it('is lightened in dark until it reads on the dark background', async () => {
    const page = await openPage({
      production: true,
      theme: { accent: '#0f766e', colorScheme: 'dark' },
    });
    const accent = 'rgb(51, 139, 132)';
    await expectControlsStyled(page, DARK_BG, accent);
    expect(await computed(page, '.bk-button--primary', 'color')).toBe('rgb(0, 0, 0)');
    expect(contrast(rgbOf(accent), rgbOf(DARK_BG))).toBeGreaterThanOrEqual(4.5);
    await page.close();
  });
});
