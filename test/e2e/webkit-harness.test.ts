import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createSsoToken } from '@bridgekit/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BridgeProcess, startBridgeProcess } from '../support/bridge-process';
import { waitFor } from '../support/wait';
import {
  makeThrowawayCert,
  startHttpsServer,
  startTlsFront,
  type TlsCert,
  type TlsServer,
} from './support/tls-front';
import { launchWebKit, type WebKit, WebKitStartError, webKitSkipReason } from './support/webkit';

// The WebKit harness end to end: the real bridge behind a TLS front (throwaway certificate) on
// https://127.0.0.1:<port>, a host page on https://localhost:<port> (another site), and
// WebKitGTK's MiniBrowser with a fresh profile and its default cookie policy (a cross-site frame
// cannot set cookies), then with ITP as in Safari (it gets none at all). Cookie probes live on
// the TLS front, on the bridge's site, so the bridge needs no test routes.

const SKIP = webKitSkipReason();
if (SKIP) console.warn(SKIP);

const ADA = {
  email: 'ada@host.test',
  firstName: 'Ada',
  lastName: 'Lovelace',
  role: 'ADMIN' as const,
};
const PROBE = '/__harness';

let cert: TlsCert;
let bridge: BridgeProcess;
let front: TlsServer;
let host: TlsServer;
let webkit: WebKit;
let org: { id: string; slug: string; name: string; jwtSecret: string };

const html = (res: ServerResponse, body: string, headers: Record<string, string> = {}) => {
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>probe</title></head><body>${body}</body></html>`,
  );
};
const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** A page that frames `src` (the host's "Reports" page). */
const framing = (res: ServerResponse, src: string) =>
  html(
    res,
    `<h1>Reports</h1><iframe title="Bridgekit" src="${escapeHtml(src)}" width="900" height="600"></iframe>`,
  );

/**
 * Probes on the bridge's site, answered by the front itself: `set?name=` sets a cookie
 * (Secure; SameSite=None, as a third-party cookie must be), `show` prints the cookies it got,
 * `frame?src=` is a same-site framing page.
 */
function probe(req: IncomingMessage, res: ServerResponse, url: URL): boolean {
  if (!url.pathname.startsWith(`${PROBE}/`)) return false;
  const name = url.searchParams.get('name') ?? '';
  switch (url.pathname.slice(PROBE.length)) {
    case '/set':
      html(res, `<p id="probe">set ${escapeHtml(name)}</p>`, {
        'set-cookie': `${name}=1; Path=/; Max-Age=600; Secure; SameSite=None`,
      });
      return true;
    case '/show':
      html(res, `<p id="probe">cookies: [${escapeHtml(req.headers.cookie ?? '')}]</p>`);
      return true;
    case '/frame':
      framing(res, url.searchParams.get('src') ?? '');
      return true;
    default:
      return false;
  }
}

async function api(key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${bridge.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as { data: unknown };
}

/** Opens `src` in the host's iframe and makes the frame the current browsing context. */
async function openFramed(src: string, page = `${host.origin}/frame`): Promise<void> {
  await webkit.switchToFrame(null);
  await webkit.navigate(`${page}?src=${encodeURIComponent(src)}`);
  await webkit.switchToFrame(await webkit.findElement('iframe'));
}

describe.skipIf(SKIP)('the WebKit harness', () => {
  beforeAll(async () => {
    [cert, bridge, webkit] = await Promise.all([
      makeThrowawayCert(),
      startBridgeProcess({ env: { BRIDGE_TRUST_PROXY: 'loopback' } }),
      launchWebKit(),
    ]);
    [front, host] = await Promise.all([
      startTlsFront({ target: bridge.url, cert, host: '127.0.0.1', intercept: probe }),
      startHttpsServer((_req, res, url) => framing(res, url.searchParams.get('src') ?? ''), {
        cert,
        host: 'localhost',
      }),
    ]);
    const key = await bridge.cli('keys', 'create', '--email', 'owner@host.test');
    const created = await api(key, 'POST', '/api/public/organizations?include=jwtSecret', {
      name: 'Acme Analytics',
      fullEmbedEnabled: true,
      embedAllowedOrigins: [host.origin],
    });
    org = created.data as typeof org;
  }, 60_000);

  afterAll(async () => {
    await webkit?.close();
    await Promise.all([front?.close(), host?.close(), bridge?.stop()]);
  }, 30_000);

  it('runs WebKitGTK with acceptInsecureCerts', () => {
    expect(webkit.capabilities.browserName).toBe('MiniBrowser');
    expect(webkit.version).toMatch(/^2\.\d+\.\d+$/);
    expect(webkit.capabilities.acceptInsecureCerts).toBe(true);
  });

  it('loads the bridge over TLS in a cross-site frame and reads the framed page', async () => {
    await openFramed(`${front.origin}/embed/orgs/${org.slug}`);
    expect(await webkit.currentUrl()).toBe(
      `${host.origin}/frame?src=${encodeURIComponent(`${front.origin}/embed/orgs/${org.slug}`)}`,
    );
    // The bridge's page shell, inside the frame, which its CSP (frame-ancestors = the
    // organization's origins) lets the host show. It signs in by script (embed-webkit.test.ts).
    expect(await webkit.execute('return location.href')).toBe(
      `${front.origin}/embed/orgs/${org.slug}`,
    );
    expect(await webkit.pageSource()).toContain('<div id="bridgekit-root" data-embed=');
    // The bridge saw the request through the front, as HTTPS.
    const seen = front.requests.find((r) => r.url === `/embed/orgs/${org.slug}`);
    expect(seen?.host).toBe(new URL(front.origin).host);
  });

  it('follows the full-embed sign-in URL to the embed page inside the frame', async () => {
    const jwt = await createSsoToken({ secret: org.jwtSecret, orgId: org.id, user: ADA });
    await openFramed(`${front.origin}/api/sso/jwt?jwt=${jwt}`);
    await webkit.waitForScript(
      'return document.readyState === "complete" && location.pathname.startsWith("/embed/")',
      { what: 'the redirect to the embed page' },
    );
    expect(await webkit.execute<string>('return location.pathname')).toBe(
      `/embed/orgs/${org.slug}`,
    );
    // The bridge answered over TLS with its redirect, and no cookie: the page signs in with the
    // handoff code of the redirect's fragment (embed-webkit.test.ts drives it to the end).
    const signIn = front.requests.find((r) => r.url.startsWith('/api/sso/jwt?'));
    expect(signIn?.status).toBe(302);
    expect(signIn?.setCookie ?? []).toEqual([]);
  });

  it('drops a cookie set inside a cross-site frame, keeps one set at top level', async () => {
    // In a cross-site frame: the answer carries Set-Cookie, the browser drops it.
    await openFramed(`${front.origin}${PROBE}/set?name=framed`);
    expect(await webkit.pageText()).toBe('set framed');
    expect(front.requests.at(-1)?.setCookie).toEqual([
      'framed=1; Path=/; Max-Age=600; Secure; SameSite=None',
    ]);
    await openFramed(`${front.origin}${PROBE}/show`);
    expect(await webkit.pageText()).toBe('cookies: []');

    // Control: the same frame on a same-site page keeps its cookie, so it is the cross-site
    // context that drops it, not the frame, TLS or the cookie's attributes.
    const sameSite = `${front.origin}${PROBE}/frame`;
    await openFramed(`${front.origin}${PROBE}/set?name=samesite`, sameSite);
    await openFramed(`${front.origin}${PROBE}/show`, sameSite);
    expect(await webkit.pageText()).toBe('cookies: [samesite=1]');

    // Top level: kept, and sent back.
    await webkit.switchToFrame(null);
    await webkit.navigate(`${front.origin}${PROBE}/set?name=top`);
    await webkit.navigate(`${front.origin}${PROBE}/show`);
    expect(await webkit.pageText()).toBe('cookies: [samesite=1; top=1]');
    expect((await webkit.cookies()).map((c) => c.name).sort()).toEqual(['samesite', 'top']);
  });

  // WebKitGTK's default policy ("no third-party") refuses new cookies in a cross-site frame but
  // still sends the ones the site set as first party: how an older session can stand in (#19).
  it('still sends first-party cookies to the cross-site frame (WebKitGTK default policy)', async () => {
    await openFramed(`${front.origin}${PROBE}/show`);
    expect(await webkit.pageText()).toBe('cookies: [samesite=1; top=1]');
  });

  it('reaches the front by another name of its certificate, and reloads', async () => {
    await webkit.switchToFrame(null);
    await webkit.navigate(`${front.originAs('bridge.localhost')}${PROBE}/set?name=named`);
    await webkit.refresh();
    expect(await webkit.pageText()).toBe('set named');
    // Loaded twice (MiniBrowser also asks that host for /favicon.ico).
    const named = front.requests.filter((r) => r.host === `bridge.localhost:${front.port}`);
    expect(named.filter((r) => r.url === `${PROBE}/set?name=named`)).toHaveLength(2);
    // Another host, so another cookie jar entry: 127.0.0.1's cookies are not sent here.
    await webkit.navigate(`${front.originAs('bridge.localhost')}${PROBE}/show`);
    expect(await webkit.pageText()).toBe('cookies: [named=1]');
    await webkit.deleteCookies();
    await webkit.navigate(`${front.originAs('bridge.localhost')}${PROBE}/show`);
    expect(await webkit.pageText()).toBe('cookies: []');
  });

  it('takes a screenshot', async () => {
    await webkit.switchToFrame(null);
    const png = await webkit.screenshot();
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(png.length).toBeGreaterThan(1_000);
  });

  describe('with ITP on (launchWebKit({ itp: true }), as in Safari)', () => {
    let safari: WebKit;
    beforeAll(async () => {
      safari = await launchWebKit({ itp: true });
    }, 40_000);
    afterAll(() => safari?.close(), 20_000);

    it('sends no cookie at all to a cross-site frame, first-party ones included', async () => {
      await safari.navigate(`${front.origin}${PROBE}/set?name=top`);
      await safari.navigate(`${front.origin}${PROBE}/show`);
      expect(await safari.pageText()).toBe('cookies: [top=1]');
      await safari.navigate(
        `${host.origin}/frame?src=${encodeURIComponent(`${front.origin}${PROBE}/show`)}`,
      );
      await safari.switchToFrame(await safari.findElement('iframe'));
      expect(await safari.pageText()).toBe('cookies: []');
    });
  });
});

describe.skipIf(SKIP)('launchWebKit and close', () => {
  it('refuses a throwaway certificate without acceptInsecureCerts', async () => {
    const server = await startHttpsServer((_req, res) => html(res, '<p>reached</p>'));
    const strict = await launchWebKit({ acceptInsecureCerts: false });
    try {
      await strict.navigate(`${server.origin}/`);
      // Blank, or WebKit's own error text ("Operation was cancelled"), never the page.
      expect(await strict.pageText()).not.toContain('reached');
      expect(server.requests).toEqual([]);
    } finally {
      await strict.close();
      await server.close();
    }
  });

  it('stops every process it started and removes the profile, after a start or a failed one', async () => {
    const browser = await launchWebKit();
    const names = browser.processes().map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(['Xvfb', 'WebKitWebDriver', 'MiniBrowser']));
    expect(existsSync(browser.profileDir)).toBe(true);
    await browser.close();
    expect(browser.processes()).toEqual([]);
    expect(existsSync(browser.profileDir)).toBe(false);

    // MiniBrowser refuses the argument; WebKitWebDriver alone would wait for it forever.
    const started = Date.now();
    const failed = await launchWebKit({ browserArgs: ['--no-such-option'] }).catch((e) => e);
    expect(failed).toBeInstanceOf(WebKitStartError);
    // Seen exiting, or (if it came and went between two looks) never seen within 10 s.
    expect(failed.message).toMatch(/MiniBrowser (exited|did not start) during New Session/);
    expect(failed.message).toContain('Unknown option --no-such-option');
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(failed.pids.length).toBeGreaterThanOrEqual(2);
    for (const pid of failed.pids) expect(isRunning(pid)).toBe(false);
    expect(existsSync(failed.profileDir)).toBe(false);
  });

  it('cleans up after a test process killed without close()', async () => {
    const orphan = spawnSync(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('./fixtures/webkit-orphan.ts', import.meta.url))],
      { encoding: 'utf8', timeout: 25_000 },
    );
    expect(orphan.signal).toBe('SIGKILL');
    const { profileDir, pids } = JSON.parse(orphan.stdout) as {
      profileDir: string;
      pids: number[];
    };
    expect(pids.length).toBeGreaterThanOrEqual(4);
    await waitFor(async () => !pids.some(isRunning) && !existsSync(profileDir), {
      timeoutMs: 5_000,
      what: 'the reaper',
    });
  });
});

/** Whether `pid` runs (a zombie waiting for its parent to reap it does not). */
function isRunning(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
