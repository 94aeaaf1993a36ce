import { Organization } from '@bridgekit/contract';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimsFor, nowSeconds, signHs256 } from '../../server/test/sso/support';
import { startBridge, type TestBridge } from '../support/bridge';
import { launchChromium } from './support/browser';
import { plainHost } from './support/embed-host';
import { send, startHttpServer, type TestServer } from './support/http-server';

// A full-embed sign-in that fails, in real Chromium, inside the README's plain host page: the
// frame shows the bridge's page in the colours the URL asked for, and tells the host (only when
// the organization allows the host's origin, and only that origin) `bridgekit:session-ended`
// with the reason.

const WAIT = { timeout: 20_000 };
// theme.css's page colours.
const LIGHT = { background: 'rgb(255, 255, 255)', color: 'rgb(31, 35, 40)' };
const DARK = { background: 'rgb(13, 17, 23)', color: 'rgb(230, 237, 243)' };

let bridge: TestBridge;
let browser: Browser;
let context: BrowserContext;
let allowed: TestServer;
let stranger: TestServer;
let embeddable: Organization & { jwtSecret: string };
let notEmbeddable: Organization & { jwtSecret: string };

const hostPage = () =>
  startHttpServer((_req, res, url) => {
    if (url.pathname !== '/plain') return send(res, 404, 'text/plain', 'not found');
    send(res, 200, 'text/html; charset=utf-8', plainHost(url.searchParams.get('src') ?? ''));
  });

async function createOrg(body: Record<string, unknown>) {
  const { key } = await bridge.newUser();
  const res = await bridge.request('POST', '/api/public/organizations?include=jwtSecret', {
    key,
    body,
  });
  if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
  return Organization.parse(res.body.data) as Organization & { jwtSecret: string };
}

beforeAll(async () => {
  [bridge, browser, allowed, stranger] = await Promise.all([
    startBridge('sqlite'),
    launchChromium(),
    hostPage(),
    hostPage(),
  ]);
  embeddable = await createOrg({
    name: 'Embeds',
    fullEmbedEnabled: true,
    embedAllowedOrigins: [allowed.origin],
  });
  notEmbeddable = await createOrg({
    name: 'No embeds',
    fullEmbedEnabled: false,
    embedAllowedOrigins: [allowed.origin],
  });
  context = await browser.newContext();
  // Every frame of the bridge records what it posts to its parent, and to which origin:
  // `parent` is a replaceable property, so the page's own script calls this wrapper.
  const bridgeOrigin = new URL(bridge.url).origin;
  await context.addInitScript((origin: string) => {
    if (location.origin !== origin || window.parent === window) return;
    const real = window.parent;
    const posted: { message: unknown; target: string }[] = [];
    (window as unknown as { posted: typeof posted }).posted = posted;
    Object.defineProperty(window, 'parent', {
      configurable: true,
      get: () => ({
        postMessage: (message: unknown, target: string) => {
          posted.push({ message, target });
          real.postMessage(message, target);
        },
      }),
    });
  }, bridgeOrigin);
}, 60_000);

afterAll(async () => {
  await context?.close().catch(() => {});
  await browser?.close();
  await Promise.all([allowed?.close(), stranger?.close(), bridge?.stop()]);
});

/** The host page at `host` framing the sign-in URL of `token`, and the bridge's frame in it. */
async function signIn(host: TestServer, token: string, theme?: string) {
  const page: Page = await context.newPage();
  page.setDefaultTimeout(WAIT.timeout);
  const src = `${bridge.url}/api/sso/jwt?jwt=${encodeURIComponent(token)}${theme ? `&theme=${theme}` : ''}`;
  await page.goto(`${host.origin}/plain?src=${encodeURIComponent(src)}`);
  const frame: Frame | null | undefined = await (
    await page.locator('iframe[title="Bridgekit"]').elementHandle()
  )?.contentFrame();
  if (!frame) throw new Error('no iframe');
  await frame.getByRole('alert').waitFor(WAIT);
  return { page, frame };
}

const look = (frame: Frame) =>
  frame.evaluate(() => ({
    background: getComputedStyle(document.body).backgroundColor,
    color: getComputedStyle(document.body).color,
    text: document.querySelector('[role=alert]')?.textContent ?? '',
    posted: (window as unknown as { posted?: unknown[] }).posted ?? [],
  }));

const hostGot = (page: Page) =>
  page.evaluate(() => (window as unknown as { bk: { messages: unknown[] } }).bk.messages);

const signed = (org: { id: string }, secret: string, extra: Record<string, unknown> = {}) =>
  signHs256(claimsFor(org.id, extra), secret);

describe('a failed full-embed sign-in', () => {
  const cases = [
    {
      name: 'a token signed with another secret',
      token: () => signed(embeddable, notEmbeddable.jwtSecret),
      theme: 'dark',
      colours: DARK,
      text: 'Invalid or expired SSO token',
      message: { type: 'bridgekit:session-ended', reason: 'sso_token_invalid' },
    },
    {
      name: 'an expired token',
      token: () =>
        signed(embeddable, embeddable.jwtSecret, {
          iat: nowSeconds() - 1200,
          exp: nowSeconds() - 600,
        }),
      theme: 'light',
      colours: LIGHT,
      text: 'Invalid or expired SSO token',
      message: { type: 'bridgekit:session-ended', reason: 'sso_token_invalid' },
    },
    {
      name: 'a token living over the limit',
      token: () =>
        signed(embeddable, embeddable.jwtSecret, { iat: nowSeconds(), exp: nowSeconds() + 7200 }),
      theme: 'dark',
      colours: DARK,
      text: 'over the limit of 3600 seconds',
      message: {
        type: 'bridgekit:session-ended',
        reason: 'sso_token_lifetime_too_long',
        limit: 3600,
      },
    },
    {
      name: 'an organization that is not embeddable',
      token: () => signed(notEmbeddable, notEmbeddable.jwtSecret),
      theme: undefined,
      colours: LIGHT,
      text: 'Full embed is not enabled for this organization',
      message: { type: 'bridgekit:session-ended', reason: 'full_embed_disabled' },
    },
  ];

  it.each(cases)('$name: the themed page, and session-ended to the host origin only', async (c) => {
    const { page, frame } = await signIn(allowed, await c.token(), c.theme);
    const seen = await look(frame);
    expect({ background: seen.background, color: seen.color }).toEqual(c.colours);
    expect(seen.text).toContain(c.text);
    expect(seen.posted).toEqual([{ message: c.message, target: allowed.origin }]);
    await expect.poll(() => hostGot(page), WAIT).toEqual([c.message]);
    await page.close();
  });

  it('framed by a site the organization does not allow: the themed page, and no message', async () => {
    const { page, frame } = await signIn(
      stranger,
      await signed(embeddable, embeddable.jwtSecret),
      'dark',
    );
    const seen = await look(frame);
    expect({ background: seen.background, color: seen.color }).toEqual(DARK);
    expect(seen.text).toContain('This page may not be embedded here');
    expect(seen.posted).toEqual([]);
    expect(await hostGot(page)).toEqual([]);
    await page.close();
  });

  it('a token naming an unknown organization: no message, whoever frames it', async () => {
    const { page, frame } = await signIn(
      allowed,
      await signHs256(claimsFor('org_0000000000000000nobody'), embeddable.jwtSecret),
      'auto',
    );
    expect((await look(frame)).posted).toEqual([]);
    expect(await hostGot(page)).toEqual([]);
    await page.close();
  });
});
