/**
 * A small typed W3C WebDriver client over fetch (https://www.w3.org/TR/webdriver2/): only the
 * commands our browser tests use, every request bounded by a timeout.
 */

import { type WaitOptions, waitFor } from '../../support/wait';

/** The W3C key under which an element reference travels. */
export const ELEMENT_KEY = 'element-6066-11e4-a52e-4f735466cecf';

export interface ElementRef {
  [ELEMENT_KEY]: string;
}

export interface Cookie {
  name: string;
  value: string;
  domain?: string;
  path?: string;
  secure?: boolean;
  httpOnly?: boolean;
  expiry?: number;
  sameSite?: 'None' | 'Lax' | 'Strict';
}

/** A WebDriver error answer: `error` is the W3C code, e.g. `no such element`, `timeout`. */
export class WebDriverError extends Error {
  constructor(
    readonly command: string,
    readonly status: number,
    readonly error: string,
    message: string,
  ) {
    super(`${command}: ${error} (${status}): ${message}`);
    this.name = 'WebDriverError';
  }
}

/** What `switchToFrame` takes: an `<iframe>` element, a frame index, or `null` (top level). */
export type FrameTarget = ElementRef | number | null;

export class WebDriverSession {
  constructor(
    /** `http://127.0.0.1:<port>` of the driver. */
    readonly driverUrl: string,
    readonly sessionId: string,
    /** What the driver answered to New Session (browserName, browserVersion, …). */
    readonly capabilities: Record<string, unknown>,
    /** Bound on each command's HTTP round trip (the driver's own timeouts come first). */
    readonly commandTimeoutMs = 30_000,
  ) {}

  /** Sends one command of this session; resolves with its `value`. */
  async command<T = unknown>(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body?: unknown,
  ): Promise<T> {
    return webDriverCommand<T>(
      this.driverUrl,
      method,
      `/session/${this.sessionId}${path}`,
      body,
      this.commandTimeoutMs,
    );
  }

  /** Loads `url` in the current top-level browsing context and waits for it (pageLoad timeout). */
  async navigate(url: string): Promise<void> {
    await this.command('POST', '/url', { url });
  }

  /** Reloads the top-level document (as the user would; a frame reloads by script). */
  async refresh(): Promise<void> {
    await this.command('POST', '/refresh', {});
  }

  async back(): Promise<void> {
    await this.command('POST', '/back', {});
  }

  currentUrl(): Promise<string> {
    return this.command('GET', '/url');
  }

  title(): Promise<string> {
    return this.command('GET', '/title');
  }

  /**
   * Runs `script` as a function body in the current browsing context (`arguments[i]` are
   * `args`); a returned promise is awaited. Elements come back as `ElementRef`s.
   */
  execute<T = unknown>(script: string, ...args: unknown[]): Promise<T> {
    return this.command('POST', '/execute/sync', { script, args });
  }

  /**
   * Runs `script` with a callback as its last argument (`arguments[arguments.length - 1]`);
   * resolves with what it is called with, or fails after the session's script timeout.
   */
  executeAsync<T = unknown>(script: string, ...args: unknown[]): Promise<T> {
    return this.command('POST', '/execute/async', { script, args });
  }

  /** The first element matching the CSS selector, in the current browsing context. */
  findElement(css: string, from?: ElementRef): Promise<ElementRef> {
    const base = from ? `/element/${from[ELEMENT_KEY]}` : '';
    return this.command('POST', `${base}/element`, { using: 'css selector', value: css });
  }

  findElements(css: string, from?: ElementRef): Promise<ElementRef[]> {
    const base = from ? `/element/${from[ELEMENT_KEY]}` : '';
    return this.command('POST', `${base}/elements`, { using: 'css selector', value: css });
  }

  /** The element's rendered text, as WebKitWebDriver computes it (see `pageText`). */
  elementText(element: ElementRef): Promise<string> {
    return this.command('GET', `/element/${element[ELEMENT_KEY]}/text`);
  }

  elementAttribute(element: ElementRef, name: string): Promise<string | null> {
    return this.command('GET', `/element/${element[ELEMENT_KEY]}/attribute/${name}`);
  }

  elementProperty<T = unknown>(element: ElementRef, name: string): Promise<T> {
    return this.command('GET', `/element/${element[ELEMENT_KEY]}/property/${name}`);
  }

  async click(element: ElementRef): Promise<void> {
    await this.command('POST', `/element/${element[ELEMENT_KEY]}/click`, {});
  }

  /** Focuses the element and types `text` into it. */
  async type(element: ElementRef, text: string): Promise<void> {
    await this.command('POST', `/element/${element[ELEMENT_KEY]}/value`, { text });
  }

  /** Makes a frame the current browsing context; `null` goes back to the top level. */
  async switchToFrame(target: FrameTarget): Promise<void> {
    await this.command('POST', '/frame', { id: target });
  }

  async switchToParentFrame(): Promise<void> {
    await this.command('POST', '/frame/parent', {});
  }

  /**
   * The current browsing context's DOM, serialized. Read by script: WebKitWebDriver's Get Page
   * Source answers with the top-level document even after `switchToFrame`.
   */
  pageSource(): Promise<string> {
    return this.execute('return document.documentElement.outerHTML');
  }

  /**
   * The rendered text of the current browsing context's `<body>` (`innerText`: hidden elements
   * left out, blocks on their own lines). WebKit's Get Element Text runs block elements together
   * ("TitleParagraph"), so this reads it by script.
   */
  pageText(): Promise<string> {
    return this.execute('return document.body ? document.body.innerText : ""');
  }

  /** The cookies the current document's URL would be sent (WebDriver's view, any flags). */
  cookies(): Promise<Cookie[]> {
    return this.command('GET', '/cookie');
  }

  /** Deletes every cookie the current document's URL would be sent. */
  async deleteCookies(): Promise<void> {
    await this.command('DELETE', '/cookie');
  }

  /** A PNG of the top-level viewport. */
  async screenshot(): Promise<Buffer> {
    return Buffer.from(await this.command<string>('GET', '/screenshot'), 'base64');
  }

  /**
   * Polls `script` (as `execute` runs it) until it returns something truthy; resolves with that.
   * Throws after `timeoutMs` with the last value or error.
   */
  async waitForScript<T>(
    script: string,
    options: WaitOptions<T> = {},
    ...args: unknown[]
  ): Promise<T> {
    return waitFor(() => this.execute<T>(script, ...args), options);
  }

  /** Ends the session: the driver closes the browser. */
  async delete(): Promise<void> {
    await webDriverCommand(
      this.driverUrl,
      'DELETE',
      `/session/${this.sessionId}`,
      undefined,
      10_000,
    );
  }
}

/** One WebDriver HTTP command (session-less or not); resolves with `value` or throws. */
export async function webDriverCommand<T = unknown>(
  driverUrl: string,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body: unknown,
  timeoutMs: number,
  /** Aborts the command early; its reason becomes the error's message. */
  signal?: AbortSignal,
): Promise<T> {
  const name = `${method} ${path}`;
  let res: Response;
  try {
    const timeout = AbortSignal.timeout(timeoutMs);
    res = await fetch(`${driverUrl}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
    });
  } catch (error) {
    if (signal?.aborted)
      throw new WebDriverError(name, 0, 'aborted', String(signal.reason?.message ?? signal.reason));
    const reason =
      error instanceof Error && error.name === 'TimeoutError'
        ? `no answer in ${timeoutMs} ms`
        : String(error);
    throw new WebDriverError(name, 0, 'driver unreachable', reason);
  }
  const text = await res.text();
  let parsed: { value?: unknown };
  try {
    parsed = JSON.parse(text) as { value?: unknown };
  } catch {
    throw new WebDriverError(name, res.status, 'invalid answer', text.slice(0, 500));
  }
  const value = parsed.value as { error?: string; message?: string } | null | undefined;
  if (!res.ok || (value && typeof value === 'object' && typeof value.error === 'string')) {
    throw new WebDriverError(
      name,
      res.status,
      value?.error ?? 'unknown error',
      value?.message ?? text.slice(0, 500),
    );
  }
  return parsed.value as T;
}
