import { rmSync } from 'node:fs';
import { Organization } from '@bridgekit/contract';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildUrlLikeSdk,
  PRESETS,
  type SdkPage,
  type SdkTheme,
  type SdkUser,
  signLikeSdk,
} from '../support/basedash-sdk';
import { startBridge, type TestBridge } from '../support/bridge';
import { launchChromium } from './support/browser';
import { embedAssets } from './support/embed-assets';
import { startEmbedHost } from './support/embed-host';
import { type Bundle, bundlePage } from './support/host-bundle';
import type { TestServer } from './support/http-server';

// The full embed as a host using Basedash's embed SDK would drive it: tokens signed and URLs
// built the SDK's way, framed by a host page on another site (http://localhost:<port>, the
// bridge on http://127.0.0.1:<port>), in Chromium with and without third-party cookies.

const WAIT = { timeout: 20_000 };
const DARK_BG = 'rgb(13, 17, 23)';
const LIGHT_BG = 'rgb(255, 255, 255)';

interface Site {
  bridge: TestBridge;
  org: Organization & { jwtSecret: string };
}

let assetsDir: string;
let host: TestServer;
let hostPort = 0;
let main: Site;
/** Short sessions: 10 s tokens, renewals stop 36 s after sign-in. */
let short: Site;
let browser: Browser;
let blocked: Browser;
const contexts: BrowserContext[] = [];
let userCount = 0;
let leftOpen: ReturnType<typeof leaveOpen>;

const nextUser = (): SdkUser & { fullName: string } => {
  userCount += 1;
  const firstName = `User${userCount}`;
  return {
    email: `user${userCount}@host.test`,
    firstName,
    lastName: 'Tester',
    role: 'ADMIN',
    fullName: `${firstName} Tester`,
  };
};

async function openSite(bridge: TestBridge): Promise<Site> {
  const owner = await bridge.newUser('owner@host.test');
  const res = await bridge.request('POST', '/api/public/organizations?include=jwtSecret', {
    key: owner.key,
    body: {
      name: 'Acme Analytics',
      fullEmbedEnabled: true,
      // The host on another site (localhost), and on the bridge's own site (127.0.0.1).
      embedAllowedOrigins: [`http://localhost:${hostPort}`, `http://127.0.0.1:${hostPort}`],
    },
  });
  if (res.status !== 201) throw new Error(`create organization: ${res.status} ${res.text}`);
  return { bridge, org: Organization.parse(res.body.data) as Site['org'] };
}

beforeAll(async () => {
  // The embed bundle copied into a directory of this file's own, so nothing rebuilds it under us.
  let bundle: Bundle;
  [bundle, assetsDir] = await Promise.all([
    bundlePage(new URL('./fixtures/bridge-embed-host.tsx', import.meta.url)),
    embedAssets(),
  ]);
  const app = { embedAssetsDir: assetsDir };
  const [one, two] = await Promise.all([
    startBridge('sqlite', {}, app),
    startBridge(
      'sqlite',
      { BRIDGE_SESSION_TTL_SECONDS: '10', BRIDGE_EMBED_SESSION_MAX_HOURS: '0.01' },
      app,
    ),
  ]);
  host = await startEmbedHost({ bundle });
  hostPort = host.port;
  [main, short, browser, blocked] = await Promise.all([
    openSite(one),
    openSite(two),
    launchChromium(),
    launchChromium(['--test-third-party-cookie-phaseout']),
  ]);
  leftOpen = leaveOpen();
  // Its test awaits it and reports a failure; until then, a rejection is not unhandled.
  leftOpen.catch(() => {});
}, 180_000);

afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => {});
  await Promise.all([browser?.close(), blocked?.close()]);
  await Promise.all([host?.close(), main?.bridge.stop(), short?.bridge.stop()]);
  rmSync(assetsDir, { recursive: true, force: true });
}, 60_000);

/**
 * A page signed in on the short-session bridge and left open until the embed says the session
 * ended (36 s after sign-in): what it saw, for the test under "a page left open". It starts with
 * the file, so the wait overlaps the other tests instead of adding to them.
 */
async function leaveOpen() {
  const page = await newPage();
  const renewals: number[] = [];
  page.on('response', (r) => {
    if (r.url().endsWith('/api/sso/session/refresh') && r.status() === 200)
      renewals.push(Date.now());
  });
  const user = nextUser();
  const started = Date.now();
  const frame = await frameIn(page, await sdkUrl(short, user));
  await memberCard(frame, user.fullName).waitFor(WAIT);
  await frame.getByRole('heading', { name: 'Your session has ended' }).waitFor({ timeout: 60_000 });
  const ended = Date.now();
  const messages = (await hostMessages(page)).messages.map((m) => m.type);
  const cardsLeft = await memberCard(frame, user.fullName).count();
  return { renewals, started, ended, messages, cardsLeft };
}

async function newPage(
  on: Browser = browser,
  colorScheme: 'light' | 'dark' = 'light',
): Promise<Page> {
  const context = await on.newContext({ viewport: { width: 1280, height: 900 }, colorScheme });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT.timeout);
  return page;
}

async function sdkUrl(
  site: Site,
  user: SdkUser,
  options: { theme?: SdkTheme; preset?: keyof typeof PRESETS; hideOrgName?: boolean } = {},
) {
  const token = await signLikeSdk({ secret: site.org.jwtSecret, orgId: site.org.id, user });
  const preset = options.preset ?? 'app';
  const page: SdkPage | undefined = preset === 'app' ? undefined : preset;
  return buildUrlLikeSdk({
    token,
    instanceUrl: site.bridge.url,
    options: {
      ...PRESETS[preset],
      ...(options.hideOrgName === undefined ? {} : { hideOrgName: options.hideOrgName }),
      theme: options.theme ?? 'auto',
    },
    ...(page ? { initialPage: { type: page, id: `${page}_123` } } : {}),
  });
}

async function bareUrl(site: Site, user: SdkUser) {
  const token = await signLikeSdk({ secret: site.org.jwtSecret, orgId: site.org.id, user });
  return `${site.bridge.url}/api/sso/jwt?jwt=${encodeURIComponent(token)}`;
}

/** The host's plain-JavaScript page framing `src`, and the bridge's frame in it. */
async function frameIn(
  page: Page,
  src: string,
  kind: 'plain' | 'react' = 'plain',
  origin = host.origin,
) {
  await page.goto(`${origin}/${kind}?src=${encodeURIComponent(src)}`);
  const handle = await page.locator('iframe[title="Bridgekit"]').elementHandle();
  const frame = await handle?.contentFrame();
  if (!frame) throw new Error('no iframe');
  return frame;
}

const memberCard = (frame: Frame, name: string) =>
  frame.getByRole('complementary', { name: 'Signed in as' }).getByRole('article', { name });

const hostMessages = (page: Page) =>
  page.evaluate(() => (window as unknown as { bk: { messages: Array<{ type: string }> } }).bk);

describe('URLs built the way Basedash’s SDK builds them', () => {
  const combos: Array<[SdkTheme, keyof typeof PRESETS, boolean | undefined]> = [];
  for (const theme of ['light', 'dark', 'auto'] as const) {
    for (const preset of Object.keys(PRESETS) as Array<keyof typeof PRESETS>) {
      combos.push([theme, preset, undefined]);
    }
    combos.push([theme, 'app', true]);
  }

  it(`sign in through the redirect and show the right user, theme and heading: ${combos.length} combinations`, async () => {
    // One tab for all: each sign-in is another user, so an older session never stands in.
    const page = await newPage(browser, 'dark');
    for (const [theme, preset, hideOrgName] of combos) {
      const user = nextUser();
      const src = await sdkUrl(main, user, { theme, preset, hideOrgName });
      const frame = await frameIn(page, src);
      const label = `${theme}/${preset}/${hideOrgName}`;
      await memberCard(frame, user.fullName).waitFor(WAIT);
      const hidden = hideOrgName ?? PRESETS[preset].hideOrgName ?? false;
      const expectedQuery = [
        theme === 'light' ? '' : `theme=${theme}`,
        hidden ? 'hide_org_name=true' : '',
      ]
        .filter(Boolean)
        .join('&');
      expect(frame.url(), label).toBe(
        `${main.bridge.url}/embed/orgs/${main.org.slug}${expectedQuery ? `?${expectedQuery}` : ''}`,
      );
      const look = await frame.evaluate(() => ({
        theme: document.documentElement.dataset.bkPageTheme,
        background: getComputedStyle(document.body).backgroundColor,
        heading:
          document.querySelector('h1')?.closest('header')?.getBoundingClientRect().height ?? 0,
        headingText: document.querySelector('h1')?.textContent,
      }));
      expect(look.theme, label).toBe(theme);
      // The context prefers dark: auto follows it, light does not.
      expect(look.background, label).toBe(theme === 'light' ? LIGHT_BG : DARK_BG);
      expect(look.headingText, label).toBe('Acme Analytics');
      if (hidden) expect(look.heading, label).toBeLessThanOrEqual(1);
      else expect(look.heading, label).toBeGreaterThan(10);
    }
  }, 180_000);

  it('signs in with a bare ?jwt= URL, light by default', async () => {
    const page = await newPage(browser, 'dark');
    const user = nextUser();
    const frame = await frameIn(page, await bareUrl(main, user));
    await memberCard(frame, user.fullName).waitFor(WAIT);
    expect(frame.url()).toBe(`${main.bridge.url}/embed/orgs/${main.org.slug}`);
    expect(await frame.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(
      LIGHT_BG,
    );
  });

  it('shows a new user after a sign-in as another user in the same tab, and updates the name', async () => {
    const page = await newPage();
    const first = nextUser();
    const second = nextUser();
    let frame = await frameIn(page, await sdkUrl(main, first));
    await memberCard(frame, first.fullName).waitFor(WAIT);
    frame = await frameIn(page, await sdkUrl(main, second));
    await memberCard(frame, second.fullName).waitFor(WAIT);
    expect(await memberCard(frame, first.fullName).count()).toBe(0);
    // The first user again, renamed by the host: the page shows the new name.
    frame = await frameIn(page, await sdkUrl(main, { ...first, lastName: 'Renamed' }));
    await memberCard(frame, `${first.firstName} Renamed`).waitFor(WAIT);
  });
});

describe('the handoff code', () => {
  it('leaves no code in the address, history or a cookie, and sends no Referer', async () => {
    const page = await newPage();
    const requests: Array<{ url: string; headers: Record<string, string> }> = [];
    page.on('request', async (request) => {
      requests.push({ url: request.url(), headers: await request.allHeaders() });
    });
    const user = nextUser();
    const frame = await frameIn(page, await sdkUrl(main, user));
    await memberCard(frame, user.fullName).waitFor(WAIT);
    expect(frame.url()).not.toContain('#');
    expect(await frame.evaluate(() => location.hash)).toBe('');
    expect(await page.context().cookies(main.bridge.url)).toEqual([]);
    const fromFrame = requests.filter(
      (r) => r.url.startsWith(main.bridge.url) && !r.url.includes('/api/sso/jwt'),
    );
    expect(fromFrame.length).toBeGreaterThan(3);
    for (const request of fromFrame) {
      expect(request.headers.referer, request.url).toBeUndefined();
      expect(request.headers.cookie, request.url).toBeUndefined();
    }
  });

  it('never stands an older session in for a used code: "could not sign in" and session-ended', async () => {
    const page = await newPage();
    const ada = nextUser();
    const frame = await frameIn(page, await sdkUrl(main, ada));
    await memberCard(frame, ada.fullName).waitFor(WAIT);
    // A code for another user, already redeemed elsewhere, then loaded in the same tab.
    const other = nextUser();
    const token = await signLikeSdk({
      secret: main.org.jwtSecret,
      orgId: main.org.id,
      user: other,
    });
    const signIn = await main.bridge.request('GET', `/api/sso/jwt?jwt=${token}`, {
      headers: { referer: `${host.origin}/plain` },
    });
    const location = signIn.headers.get('location') ?? '';
    const code = new URLSearchParams(location.slice(location.indexOf('#') + 1)).get('code') ?? '';
    // Redeemed as the embed page does it, framed by the host: from the bridge's own origin.
    const used = await main.bridge.request('POST', '/embed/session', {
      body: { code, framingOrigin: host.origin },
      headers: { 'x-bridgekit-embed': '1', origin: main.bridge.url },
    });
    expect(used.status).toBe(200);
    const again = await frameIn(page, `${main.bridge.url}${location}`);
    await again.getByRole('heading', { name: 'Could not sign in' }).waitFor(WAIT);
    expect(await memberCard(again, ada.fullName).count()).toBe(0);
    expect(await again.getByText('Data sources').count()).toBe(0);
    await expect
      .poll(async () => (await hostMessages(page)).messages.map((m) => m.type), WAIT)
      .toContain('bridgekit:session-ended');
  });

  it('resumes the tab’s session when the frame reloads where the frame may keep tab storage', async () => {
    // A host on the bridge's own site (127.0.0.1, another port): the frame's storage is allowed.
    const page = await newPage();
    const user = nextUser();
    const sameSite = `http://127.0.0.1:${host.port}`;
    const frame = await frameIn(
      page,
      await sdkUrl(main, user, { theme: 'dark' }),
      'plain',
      sameSite,
    );
    await memberCard(frame, user.fullName).waitFor(WAIT);
    const renewed = page.waitForResponse((r) => r.url().endsWith('/api/sso/session/refresh'));
    await frame.evaluate(() => location.reload());
    expect((await renewed).status()).toBe(200);
    await memberCard(frame, user.fullName).waitFor(WAIT);
    expect(await frame.evaluate(() => document.documentElement.dataset.bkPageTheme)).toBe('dark');
    expect((await hostMessages(page)).messages.map((m) => m.type)).not.toContain(
      'bridgekit:session-ended',
    );
  });

  it('asks the host for a new URL when the frame reloads where its storage is refused (cross-site in Chromium)', async () => {
    const page = await newPage();
    const user = nextUser();
    const frame = await frameIn(page, await sdkUrl(main, user), 'react');
    await memberCard(frame, user.fullName).waitFor(WAIT);
    expect(
      await frame.evaluate(() => {
        try {
          return typeof window.sessionStorage;
        } catch (error) {
          return (error as Error).name;
        }
      }),
    ).toBe('SecurityError');
    await frame.evaluate(() => location.reload());
    await frame.getByRole('heading', { name: 'Could not sign in' }).waitFor(WAIT);
    expect(await memberCard(frame, user.fullName).count()).toBe(0);
    await expect.poll(() => page.evaluate(() => window.bkReact.ended), WAIT).toBe(1);
  });
});

describe('with third-party cookies blocked', () => {
  it('really blocks them: an unpartitioned cookie the bridge’s frame sets is dropped, a partitioned one kept', async () => {
    const page = await newPage(blocked);
    const frame = await frameIn(page, `${main.bridge.url}/embed/orgs/${main.org.slug}`);
    const jar = await frame.evaluate(() => {
      // biome-ignore lint/suspicious/noDocumentCookie: the test is about what the jar keeps.
      document.cookie = 'bkthird=1; SameSite=None; Secure; Path=/';
      // biome-ignore lint/suspicious/noDocumentCookie: the partitioned control.
      document.cookie = 'bkchips=1; SameSite=None; Secure; Partitioned; Path=/';
      return document.cookie;
    });
    expect(jar).toBe('bkchips=1');
  });

  it.each([
    ['the bare ?jwt= URL', 'bare'],
    ['the URL Basedash’s SDK builds', 'sdk'],
  ] as const)(
    'signs in with %s, shows the right user and survives a renewal',
    async (_, shape) => {
      const page = await newPage(blocked);
      const user = nextUser();
      const src = shape === 'bare' ? await bareUrl(short, user) : await sdkUrl(short, user);
      const renewed = page.waitForResponse(
        (r) => r.url().endsWith('/api/sso/session/refresh') && r.status() === 200,
        { timeout: 15_000 },
      );
      const frame = await frameIn(page, src);
      await memberCard(frame, user.fullName).waitFor(WAIT);
      await renewed;
      // An API call after the renewal, with the renewed token.
      await frame.getByRole('button', { name: 'Add data source' }).click();
      await frame.getByRole('region', { name: 'Add data source' }).waitFor(WAIT);
      await memberCard(frame, user.fullName).waitFor(WAIT);
    },
    40_000,
  );
});

describe('a page left open', () => {
  it('renews three times and more, then says the session ended at the absolute limit and tells the host', async () => {
    const { renewals, started, ended, messages, cardsLeft } = await leftOpen;
    expect(renewals.length).toBeGreaterThanOrEqual(3);
    // Not before the 36 s limit (less the time the sign-in took), and soon after it.
    expect(ended - started).toBeGreaterThan(30_000);
    expect(ended - started).toBeLessThan(50_000);
    expect(messages.filter((t) => t === 'bridgekit:session-ended')).toHaveLength(1);
    expect(cardsLeft).toBe(0);
  }, 80_000);
});

describe('BridgeEmbed', () => {
  it('follows the content height of the page, growing and shrinking with it', async () => {
    const page = await newPage();
    const user = nextUser();
    const frame = await frameIn(page, await sdkUrl(main, user), 'react');
    await memberCard(frame, user.fullName).waitFor(WAIT);
    const iframe = page.locator('iframe[title="Bridgekit"]');
    const sizes = async () => ({
      iframe: (await iframe.boundingBox())?.height ?? 0,
      content: await frame.evaluate(() =>
        Math.ceil(document.getElementById('bridgekit-root')!.getBoundingClientRect().height),
      ),
    });
    await expect
      .poll(async () => {
        const s = await sizes();
        return Math.abs(s.iframe - s.content) <= 1;
      }, WAIT)
      .toBe(true);
    const before = await sizes();
    expect(await iframe.getAttribute('allow')).toBe('clipboard-write');

    await frame.getByRole('button', { name: 'Add data source' }).click();
    await frame.getByRole('region', { name: 'Add data source' }).waitFor(WAIT);
    await expect
      .poll(async () => (await sizes()).iframe, WAIT)
      .toBeGreaterThan(before.iframe + 200);
    const open = await sizes();
    expect(Math.abs(open.iframe - open.content)).toBeLessThanOrEqual(1);
    // No scrolling inside the frame: it is as tall as its content.
    expect(
      await frame.evaluate(() => document.documentElement.scrollHeight - innerHeight),
    ).toBeLessThanOrEqual(1);

    await frame.getByRole('button', { name: 'Close' }).click();
    await expect.poll(async () => (await sizes()).iframe, WAIT).toBeLessThan(open.iframe - 200);
    const heights = await page.evaluate(() => window.bkReact.heights);
    expect(heights.length).toBeGreaterThanOrEqual(3);
  });

  it('calls onSessionEnded when the page cannot sign in', async () => {
    const page = await newPage();
    const frame = await frameIn(page, `${main.bridge.url}/embed/orgs/${main.org.slug}`, 'react');
    await frame.getByRole('heading', { name: 'Could not sign in' }).waitFor(WAIT);
    await expect.poll(() => page.evaluate(() => window.bkReact.ended), WAIT).toBe(1);
  });
});
