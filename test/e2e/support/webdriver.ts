import type { Cookie } from '@wdio/protocols';
import { remote } from 'webdriverio';
import { type WaitOptions, waitFor } from '../../support/wait';

// The browser commands our WebKit tests use, over webdriverio's W3C WebDriver client (classic
// protocol: WebKitWebDriver speaks no WebDriver BiDi).

type Browser = Awaited<ReturnType<typeof remote>>;
/** An element as the protocol returns it (the W3C element key and its id). */
export type ElementRef = Awaited<ReturnType<Browser['findElement']>>;
/** What `switchToFrame` takes: an `<iframe>` element, a frame index, or `null` (top level). */
export type FrameTarget = ElementRef | number | null;
export type { Cookie };

const ELEMENT_KEY = 'element-6066-11e4-a52e-4f735466cecf';
const idOf = (element: ElementRef) => (element as unknown as Record<string, string>)[ELEMENT_KEY]!;

export class WebDriverSession {
  constructor(readonly browser: Browser) {}

  /** What the driver answered to New Session (browserName, browserVersion, …). */
  get capabilities(): Record<string, unknown> {
    return this.browser.capabilities as Record<string, unknown>;
  }

  /** Loads `url` in the current top-level browsing context and waits for it (pageLoad timeout). */
  async navigate(url: string): Promise<void> {
    await this.browser.navigateTo(url);
  }

  /** Reloads the top-level document (as the user would; a frame reloads by script). */
  async refresh(): Promise<void> {
    await this.browser.refresh();
  }

  currentUrl(): Promise<string> {
    return this.browser.getUrl();
  }

  /**
   * Runs `script` as a function body in the current browsing context (`arguments[i]` are
   * `args`); a returned promise is awaited.
   */
  execute<T = unknown>(script: string, ...args: unknown[]): Promise<T> {
    return this.browser.executeScript(script, args as object[]) as Promise<T>;
  }

  /** The first element matching the CSS selector, in the current browsing context. */
  findElement(css: string): Promise<ElementRef> {
    return this.browser.findElement('css selector', css);
  }

  async click(element: ElementRef): Promise<void> {
    await this.browser.elementClick(idOf(element));
  }

  /** Makes a frame the current browsing context; `null` goes back to the top level. */
  async switchToFrame(target: FrameTarget): Promise<void> {
    await this.browser.switchToFrame(target as never);
  }

  /**
   * The current browsing context's DOM, serialized. Read by script: WebKitWebDriver's Get Page
   * Source answers with the top-level document even after `switchToFrame`.
   */
  pageSource(): Promise<string> {
    return this.execute('return document.documentElement.outerHTML');
  }

  /**
   * The rendered text of the current browsing context's `<body>` (`innerText`). WebKit's Get
   * Element Text runs block elements together ("TitleParagraph"), so this reads it by script.
   */
  pageText(): Promise<string> {
    return this.execute('return document.body ? document.body.innerText : ""');
  }

  /** The cookies the current document's URL would be sent (WebDriver's view, any flags). */
  cookies(): Promise<Cookie[]> {
    return this.browser.getAllCookies();
  }

  /** Deletes every cookie the current document's URL would be sent. */
  async deleteCookies(): Promise<void> {
    await this.browser.deleteAllCookies();
  }

  /** A PNG of the top-level viewport. */
  async screenshot(): Promise<Buffer> {
    return Buffer.from(await this.browser.takeScreenshot(), 'base64');
  }

  /** Polls `script` (as `execute` runs it) until it returns something truthy; resolves with that. */
  waitForScript<T>(script: string, options: WaitOptions<T> = {}, ...args: unknown[]): Promise<T> {
    return waitFor(() => this.execute<T>(script, ...args), options);
  }

  /** Ends the session: the driver closes the browser. */
  async delete(): Promise<void> {
    await this.browser.deleteSession();
  }
}

/**
 * A New Session on the driver at `driverUrl` with `capabilities`, bounded by `timeoutMs`, and
 * given up early when `signal` aborts (its reason becomes the error).
 */
export async function newWebDriverSession(
  driverUrl: string,
  capabilities: Record<string, unknown>,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<WebDriverSession> {
  const url = new URL(driverUrl);
  const session = remote({
    protocol: 'http',
    hostname: url.hostname,
    port: Number(url.port),
    path: '/',
    capabilities: { ...capabilities, 'wdio:enforceWebDriverClassic': true },
    logLevel: 'silent',
    connectionRetryTimeout: timeoutMs,
    connectionRetryCount: 0,
  });
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  // The losing side settles later (the driver killed); nothing waits for it.
  session.catch(() => {});
  return new WebDriverSession(await Promise.race([session, aborted]));
}

/** Whether the driver at `driverUrl` answers its status as ready. */
export async function driverReady(driverUrl: string): Promise<boolean> {
  const res = await fetch(`${driverUrl}/status`, { signal: AbortSignal.timeout(1_000) });
  const body = (await res.json()) as { value?: { ready?: boolean } };
  return body.value?.ready === true;
}
