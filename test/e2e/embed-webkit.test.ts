import { rmSync } from 'node:fs';
import { Organization } from '@bridgekit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildUrlLikeSdk, PRESETS, type SdkUser, signLikeSdk } from '../support/basedash-sdk';
import { startBridge, type TestBridge } from '../support/bridge';
import { waitFor } from '../support/wait';
import { embedAssets } from './support/embed-assets';
import { plainHost } from './support/embed-host';
import {
  makeThrowawayCert,
  startHttpsServer,
  startTlsFront,
  type TlsServer,
} from './support/tls-front';
import { launchWebKit, type WebKit, webKitSkipReason } from './support/webkit';

// The full embed in WebKit (Safari's engine: WebKitGTK's MiniBrowser, a fresh profile, its
// default cookie policy, which refuses cookies in a cross-site frame): the bridge behind a TLS
// front on https://127.0.0.1:<port>, the host page on https://localhost:<port>, another site.
// The page signs in with the handoff code alone, no cookie, and renews itself (10 s tokens).

const SKIP = webKitSkipReason();
if (SKIP) console.warn(SKIP);

const WAIT = { timeoutMs: 20_000 };

let assetsDir: string;
let bridge: TestBridge;
let front: TlsServer;
let host: TlsServer;
let org: Organization & { jwtSecret: string };
let users = 0;

const nextUser = (): SdkUser & { fullName: string } => {
  users += 1;
  return {
    email: `webkit${users}@host.test`,
    firstName: `Webkit${users}`,
    lastName: 'Tester',
    role: 'ADMIN',
    fullName: `Webkit${users} Tester`,
  };
};

describe.skipIf(SKIP)('the full embed in WebKit, third-party cookies refused', () => {
  beforeAll(async () => {
    let cert: Awaited<ReturnType<typeof makeThrowawayCert>>;
    [cert, assetsDir] = await Promise.all([makeThrowawayCert(), embedAssets()]);
    bridge = await startBridge(
      'sqlite',
      { BRIDGE_SESSION_TTL_SECONDS: '10', BRIDGE_EMBED_SESSION_MAX_HOURS: '1' },
      { embedAssetsDir: assetsDir },
    );
    [front, host] = await Promise.all([
      startTlsFront({ target: bridge.url, cert, host: '127.0.0.1' }),
      startHttpsServer(
        (_req, res, url) => {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          res.end(plainHost(url.searchParams.get('src') ?? ''));
        },
        { cert, host: 'localhost' },
      ),
    ]);
    const owner = await bridge.newUser('owner@host.test');
    const res = await bridge.request('POST', '/api/public/organizations?include=jwtSecret', {
      key: owner.key,
      body: { name: 'Acme Analytics', fullEmbedEnabled: true, embedAllowedOrigins: [host.origin] },
    });
    org = Organization.parse(res.body.data) as typeof org;
  }, 120_000);

  afterAll(async () => {
    await Promise.all([front?.close(), host?.close(), bridge?.stop()]);
    rmSync(assetsDir, { recursive: true, force: true });
  }, 30_000);

  const token = (user: SdkUser) => signLikeSdk({ secret: org.jwtSecret, orgId: org.id, user });

  // Both cookie policies: WebKitGTK's default (cookies a cross-site frame sets are dropped) and
  // ITP as in Safari (a cross-site frame gets no cookie at all).
  it.each([
    ['the bare ?jwt= URL', 'bare', 'default policy', false],
    ['the URL Basedash’s SDK builds', 'sdk', 'default policy', false],
    ['the bare ?jwt= URL', 'bare', 'ITP', true],
    ['the URL Basedash’s SDK builds', 'sdk', 'ITP', true],
  ] as const)(
    'signs in with %s in a fresh profile (%s), shows the right user, survives a renewal',
    async (_, shape, _policy, itp) => {
      const webkit: WebKit = await launchWebKit({ itp });
      try {
        const user = nextUser();
        const jwt = await token(user);
        const src =
          shape === 'bare'
            ? `${front.origin}/api/sso/jwt?jwt=${jwt}`
            : buildUrlLikeSdk({
                token: jwt,
                instanceUrl: front.origin,
                options: { ...PRESETS.dashboard, theme: 'dark' },
                initialPage: { type: 'dashboard', id: 'dash_1' },
              });
        await webkit.navigate(`${host.origin}/plain?src=${encodeURIComponent(src)}`);
        await webkit.switchToFrame(await webkit.findElement('iframe'));
        const shown = `return document.querySelector('aside[aria-label="Signed in as"] article[data-state=ready] .bk-member-card__name')?.textContent ?? ''`;
        expect(
          await webkit.waitForScript<string>(shown, { ...WAIT, what: 'the member card' }),
        ).toBe(user.fullName);
        // The code left the address; nothing of the bridge's is in the cookie jar.
        expect(await webkit.execute('return location.hash')).toBe('');
        expect(await webkit.cookies()).toEqual([]);
        expect(await webkit.execute('return document.documentElement.dataset.bkPageTheme')).toBe(
          shape === 'sdk' ? 'dark' : 'light',
        );

        const renewals = () =>
          front.requests.filter((r) => r.url === '/api/sso/session/refresh' && r.status === 200)
            .length;
        const before = renewals();
        await waitFor(async () => renewals() > before, { timeoutMs: 15_000, what: 'a renewal' });
        // After the renewal the page still works: an API call with the renewed token.
        await webkit.click(await webkit.findElement('.bk-data-source-list__head button'));
        await webkit.waitForScript(
          "return [...document.querySelectorAll('h3')].some((h) => h.textContent === 'Add data source')",
          { ...WAIT, what: 'the editor' },
        );
        expect(await webkit.execute<string>(shown)).toBe(user.fullName);
        const lastApi = front.requests.filter((r) => r.url.startsWith('/api/public/')).at(-1);
        expect(lastApi?.status).toBe(200);
        // The host learnt the height, from the bridge's origin only.
        await webkit.switchToFrame(null);
        const messages = await webkit.execute<Array<{ type: string }>>('return window.bk.messages');
        expect(messages.map((m) => m.type)).toContain('bridgekit:resize');
        expect(messages.map((m) => m.type)).not.toContain('bridgekit:session-ended');
      } finally {
        await webkit.close();
      }
    },
    90_000,
  );

  it('resumes the session when a cross-site frame reloads (ITP: WebKit keeps partitioned tab storage)', async () => {
    const webkit: WebKit = await launchWebKit({ itp: true });
    try {
      const user = nextUser();
      const src = `${front.origin}/api/sso/jwt?jwt=${await token(user)}`;
      await webkit.navigate(`${host.origin}/plain?src=${encodeURIComponent(src)}`);
      await webkit.switchToFrame(await webkit.findElement('iframe'));
      const shown = `return document.querySelector('aside[aria-label="Signed in as"] article[data-state=ready] .bk-member-card__name')?.textContent ?? ''`;
      expect(await webkit.waitForScript<string>(shown, { ...WAIT, what: 'the member card' })).toBe(
        user.fullName,
      );
      // Unlike Chromium, WebKit gives the cross-site frame storage of its own (partitioned by
      // the top-level site), so the tab's session is there after a reload.
      expect(await webkit.execute<string>('return typeof window.sessionStorage')).toBe('object');
      const renewals = () =>
        front.requests.filter((r) => r.url === '/api/sso/session/refresh' && r.status === 200)
          .length;
      const redemptions = () => front.requests.filter((r) => r.url === '/embed/session').length;
      const redeemed = redemptions();
      const before = renewals();
      await webkit.execute('setTimeout(() => location.reload(), 0)');
      // The reloaded page renews at once (which checks the session is still live) and shows the
      // same user; no code was used again and the host is not asked for a new URL.
      await waitFor(async () => renewals() > before, { timeoutMs: 15_000, what: 'a renewal' });
      await webkit.switchToFrame(null);
      await webkit.switchToFrame(await webkit.findElement('iframe'));
      expect(await webkit.waitForScript<string>(shown, { ...WAIT, what: 'the member card' })).toBe(
        user.fullName,
      );
      expect(await webkit.execute('return location.hash')).toBe('');
      expect(redemptions()).toBe(redeemed);
      await webkit.switchToFrame(null);
      const messages = await webkit.execute<Array<{ type: string }>>('return window.bk.messages');
      expect(messages.map((m) => m.type)).not.toContain('bridgekit:session-ended');
    } finally {
      await webkit.close();
    }
  }, 90_000);

  it('refuses a sign-in link at top level, then shows the user of a framed sign-in', async () => {
    const webkit: WebKit = await launchWebKit();
    try {
      const shown = `return document.querySelector('aside[aria-label="Signed in as"] article[data-state=ready] .bk-member-card__name')?.textContent ?? ''`;
      // First party: a sign-in link opened at top level signs no one in (the code is burnt).
      const older = nextUser();
      const signIn = await bridge.request('GET', `/api/sso/jwt?jwt=${await token(older)}`, {
        headers: { referer: `${host.origin}/` },
      });
      await webkit.navigate(`${front.origin}${signIn.headers.get('location')}`);
      const heading = `return document.querySelector('[role=alert] h1')?.textContent ?? ''`;
      expect(await webkit.waitForScript<string>(heading, { ...WAIT, what: 'the refusal' })).toBe(
        'Could not sign in',
      );
      expect(await webkit.execute<string>(shown)).toBe('');
      // Then the host frames a sign-in for someone else.
      const newer = nextUser();
      await webkit.navigate(
        `${host.origin}/plain?src=${encodeURIComponent(`${front.origin}/api/sso/jwt?jwt=${await token(newer)}`)}`,
      );
      await webkit.switchToFrame(await webkit.findElement('iframe'));
      expect(await webkit.waitForScript<string>(shown, { ...WAIT, what: 'the newer user' })).toBe(
        newer.fullName,
      );
    } finally {
      await webkit.close();
    }
  }, 90_000);
});
