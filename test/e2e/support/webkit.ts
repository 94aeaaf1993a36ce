import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../support/free-port';
import {
  type GroupProcess,
  groupProcesses,
  reapLater,
  signalGroup,
  startReaper,
  stopGroup,
} from './process-group';
import { driverReady, newWebDriverSession, type WebDriverSession } from './webdriver';

// WebKit, the engine of Safari, as Debian ships it: WebKitGTK's MiniBrowser driven by
// WebKitWebDriver (package webkit2gtk-driver) on a private Xvfb display (package xvfb).
// `scripts/ensure-system-deps.sh` installs both.

export const WEBKIT_DRIVER = '/usr/bin/WebKitWebDriver';
export const XVFB = '/usr/bin/Xvfb';

/** Debian's MiniBrowser (`/usr/lib/<triplet>/webkit2gtk-4.x/MiniBrowser`), if installed. */
export function findMiniBrowser(): string | undefined {
  const candidates: string[] = [];
  for (const lib of ['/usr/lib', '/usr/libexec']) {
    let entries: string[];
    try {
      entries = readdirSync(lib);
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.startsWith('webkit2gtk-4.')) candidates.push(path.join(lib, entry, 'MiniBrowser'));
      if (!entry.includes('-linux-')) continue;
      try {
        for (const sub of readdirSync(path.join(lib, entry))) {
          if (sub.startsWith('webkit2gtk-4.'))
            candidates.push(path.join(lib, entry, sub, 'MiniBrowser'));
        }
      } catch {}
    }
  }
  // Highest API version first (4.1 over 4.0).
  return candidates
    .sort()
    .reverse()
    .find((file) => existsSync(file));
}

/** The binaries a WebKit test needs that are not installed (empty: ready to run). */
export function missingWebKitBinaries(): string[] {
  const missing: string[] = [];
  if (!existsSync(WEBKIT_DRIVER)) missing.push(`${WEBKIT_DRIVER} (webkit2gtk-driver)`);
  if (!findMiniBrowser()) missing.push('MiniBrowser (libwebkit2gtk-4.1-0)');
  if (!existsSync(XVFB)) missing.push(`${XVFB} (xvfb)`);
  return missing;
}

/**
 * Why WebKit tests must be skipped, or undefined when they run: only when the binaries are
 * missing and this process could not have installed them (not root). As root (CI, after
 * `scripts/ensure-system-deps.sh`) a missing binary is a failure, never a skip.
 */
export function webKitSkipReason(): string | undefined {
  const missing = missingWebKitBinaries();
  if (missing.length === 0 || process.getuid?.() === 0) return undefined;
  return `WebKit tests skipped: missing ${missing.join(', ')}; run: sudo bash scripts/ensure-system-deps.sh`;
}

export interface WebKitOptions {
  /**
   * Accept the throwaway certificates of `tls-front.ts` (W3C `acceptInsecureCerts`; WebKitGTK
   * then ignores TLS errors for the whole session). Default true.
   */
  acceptInsecureCerts?: boolean;
  /**
   * MiniBrowser's `--enable-itp` (Intelligent Tracking Prevention, on in Safari). Default false:
   * WebKitGTK's default cookie policy alone (`no-third-party`), which drops cookies a cross-site
   * frame sets but still sends it those its site set as first party. With ITP a cross-site
   * frame gets no cookie at all, as in Safari. Run the embed tests both ways.
   */
  itp?: boolean;
  /** More MiniBrowser arguments (see `MiniBrowser --help-all`), after `--automation`. */
  browserArgs?: string[];
  /** Browser window size. Default 1280×1000. */
  window?: { width: number; height: number };
  /** The driver's page-load timeout (navigate waits for `load`). Default 20 s. */
  pageLoadTimeoutMs?: number;
  /** The driver's script timeout (`executeAsync`, awaited promises). Default 10 s. */
  scriptTimeoutMs?: number;
  /** How long starting (Xvfb, driver, New Session) may take in all. Default 30 s. */
  startTimeoutMs?: number;
}

export interface WebKit extends WebDriverSession {
  /** MiniBrowser's WebKitGTK version, e.g. `2.50.6`. */
  readonly version: string;
  /** The X display it draws on, e.g. `:99`. */
  readonly display: string;
  /** What the driver and the browser wrote to stdout/stderr so far (for failure messages). */
  logs(): string;
  /** The temporary directory holding the profile (HOME, XDG dirs); gone after `close()`. */
  readonly profileDir: string;
  /**
   * The live processes it started (Xvfb, the driver, MiniBrowser, WebKit's network and web
   * processes), by pid and name: empty after `close()`.
   */
  processes(): GroupProcess[];
  /**
   * Ends the session, then kills the driver, the browser and its helper processes, and Xvfb, and
   * removes the profile directory. Idempotent; never throws.
   */
  close(): Promise<void>;
}

interface Started {
  dir: string;
  /** Kills the process groups and removes `dir` if this process dies without `close()`. */
  reaper?: ChildProcess;
  xvfb?: ChildProcess;
  driver?: ChildProcess;
  session?: WebDriverSession;
  output: string[];
  closed?: Promise<void>;
}

/** Every started set not closed yet: killed on process exit if a test forgot (or crashed). */
const live = new Set<Started>();
let exitHook = false;

/**
 * WebKit with a fresh profile on a private display: starts Xvfb on a free display, then
 * WebKitWebDriver on a free port, then a W3C session (MiniBrowser in automation mode, which uses
 * an ephemeral data store; HOME and the XDG dirs also point into a new temporary directory).
 * Cookies follow WebKitGTK's default policy: third-party cookies blocked. Call `close()` in
 * teardown; on a failed start everything is already stopped.
 */
export async function launchWebKit(options: WebKitOptions = {}): Promise<WebKit> {
  const missing = missingWebKitBinaries();
  if (missing.length > 0) {
    throw new Error(
      `WebKit is not installed: missing ${missing.join(', ')}; run scripts/ensure-system-deps.sh`,
    );
  }
  const started: Started = { dir: mkdtempSync(path.join(tmpdir(), 'bk-webkit-')), output: [] };
  started.reaper = startReaper(started.dir);
  live.add(started);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const s of live) killNow(s);
    });
  }
  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  const left = () => Math.max(1_000, deadline - Date.now());
  try {
    const display = await startXvfb(started, left());
    const driverUrl = await startDriver(started, display, left());
    const session = await newSession(started, driverUrl, options, left());
    started.session = session;
    const version = String(session.capabilities.browserVersion ?? '');
    const { width = 1280, height = 1000 } = options.window ?? {};
    await session.browser.setWindowRect(null, null, width, height);
    return Object.assign(session, {
      version,
      display,
      profileDir: started.dir,
      logs: () => started.output.join(''),
      processes: () => [...groupProcesses(started.xvfb), ...groupProcesses(started.driver)],
      close: () => close(started),
    }) as WebKit;
  } catch (error) {
    const pids = [...groupProcesses(started.xvfb), ...groupProcesses(started.driver)].map(
      (p) => p.pid,
    );
    await close(started);
    // What the browser printed before it died may still be in the pipe: read it to the end.
    await outputDrained(started.driver, 1_000);
    const logs = started.output.join('').trim();
    const reason = error instanceof Error ? error.message : String(error);
    throw new WebKitStartError(
      `WebKit did not start: ${reason}${logs ? `\n--- driver/browser output ---\n${logs.slice(-4000)}` : ''}`,
      { cause: error, profileDir: started.dir, pids },
    );
  }
}

/** A failed `launchWebKit`: what it had started, all stopped and removed before it is thrown. */
export class WebKitStartError extends Error {
  readonly profileDir: string;
  /** The processes that ran when the start failed (now killed). */
  readonly pids: number[];

  constructor(message: string, details: { cause: unknown; profileDir: string; pids: number[] }) {
    super(message, { cause: details.cause });
    this.name = 'WebKitStartError';
    this.profileDir = details.profileDir;
    this.pids = details.pids;
  }
}

function profileEnv(dir: string, display: string): Record<string, string> {
  const home = path.join(dir, 'home');
  const runtime = path.join(dir, 'run');
  for (const d of [home, runtime]) mkdirSync(d, { recursive: true, mode: 0o700 });
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    DISPLAY: display,
    GDK_BACKEND: 'x11',
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local/share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_RUNTIME_DIR: runtime,
    // No session bus, accessibility bus or dconf: nothing outlives the browser.
    DBUS_SESSION_BUS_ADDRESS: 'disabled:',
    NO_AT_BRIDGE: '1',
    GSETTINGS_BACKEND: 'memory',
    GIO_USE_VFS: 'local',
  };
}

/** Resolves once the child's stdout and stderr have ended (its whole process group is gone). */
async function outputDrained(child: ChildProcess | undefined, timeoutMs: number): Promise<void> {
  const ended = (stream: NodeJS.ReadableStream | null | undefined) =>
    !stream ||
    (stream as { readableEnded?: boolean; destroyed?: boolean }).readableEnded ||
    (stream as { destroyed?: boolean }).destroyed;
  const until = Date.now() + timeoutMs;
  while (child && !(ended(child.stdout) && ended(child.stderr)) && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function capture(started: Started, child: ChildProcess, name: string) {
  const keep = (chunk: Buffer) => {
    started.output.push(`[${name}] ${chunk}`);
    if (started.output.length > 400) started.output.splice(0, started.output.length - 400);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
}

/** Xvfb picks a free display itself (`-displayfd`) and writes its number on fd 3. */
async function startXvfb(started: Started, timeoutMs: number): Promise<string> {
  const xvfb = spawn(
    XVFB,
    ['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp', '-noreset'],
    { detached: true, stdio: ['ignore', 'ignore', 'pipe', 'pipe'] },
  );
  started.xvfb = xvfb;
  reapLater(started.dir, xvfb);
  capture(started, xvfb, 'Xvfb');
  const fd3 = xvfb.stdio[3] as NodeJS.ReadableStream;
  return new Promise<string>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(
      () => reject(new Error(`Xvfb gave no display in ${timeoutMs} ms`)),
      timeoutMs,
    );
    fd3.on('data', (chunk: Buffer) => {
      text += chunk;
      const match = /^(\d+)\n/.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve(`:${match[1]}`);
      }
    });
    xvfb.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`Xvfb exited at start (${code ?? signal})`));
    });
  });
}

async function startDriver(started: Started, display: string, timeoutMs: number): Promise<string> {
  const port = await freePort();
  const driver = spawn(WEBKIT_DRIVER, [`--port=${port}`, '--host=127.0.0.1'], {
    // Its own process group, which MiniBrowser and WebKit's helper processes inherit: teardown
    // signals the whole group.
    detached: true,
    cwd: started.dir,
    env: profileEnv(started.dir, display),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.driver = driver;
  reapLater(started.dir, driver);
  capture(started, driver, 'driver');
  const url = `http://127.0.0.1:${port}`;
  let exited = false;
  driver.once('exit', () => {
    exited = true;
  });
  // Its own loop, not vi.waitFor: the launcher also runs outside Vitest (fixtures/webkit-orphan.ts).
  const deadline = Date.now() + timeoutMs;
  while (!(await driverReady(url).catch(() => false))) {
    if (exited) throw new Error('WebKitWebDriver exited at start');
    if (Date.now() > deadline)
      throw new Error(`WebKitWebDriver on ${url} not ready in ${timeoutMs} ms`);
    await sleep(50);
  }
  return url;
}

async function newSession(
  started: Started,
  driverUrl: string,
  options: WebKitOptions,
  timeoutMs: number,
): Promise<WebDriverSession> {
  const binary = findMiniBrowser() as string;
  const args = [
    '--automation',
    ...(options.itp ? ['--enable-itp'] : []),
    ...(options.browserArgs ?? []),
  ];
  const capabilities = {
    acceptInsecureCerts: options.acceptInsecureCerts ?? true,
    pageLoadStrategy: 'normal',
    timeouts: {
      pageLoad: options.pageLoadTimeoutMs ?? 20_000,
      script: options.scriptTimeoutMs ?? 10_000,
      implicit: 0,
    },
    'webkitgtk:browserOptions': { binary, args },
  };
  // The driver waits for the browser without a limit (one that cannot open the display, or that
  // exited, hangs New Session): the fetch timeout and the watch on MiniBrowser bound it.
  const watch = watchBrowserStart(started.driver);
  return newWebDriverSession(driverUrl, capabilities, timeoutMs, watch.signal).finally(watch.stop);
}

/**
 * Aborts when the browser dies while New Session waits (WebKitWebDriver itself would wait
 * forever, e.g. for a MiniBrowser that rejected an argument).
 */
function watchBrowserStart(driver: ChildProcess | undefined): {
  signal: AbortSignal;
  stop(): void;
} {
  const controller = new AbortController();
  const started = Date.now();
  let seen = false;
  const timer = setInterval(() => {
    // A zombie counts as seen: one that fails at once (a bad argument) is often caught only so.
    const browsers = groupProcesses(driver, { zombies: true }).filter(
      (p) => p.name === 'MiniBrowser',
    );
    if (browsers.length > 0) seen = true;
    const running = groupProcesses(driver).some((p) => p.name === 'MiniBrowser');
    // Seen and gone, or never seen while the driver had ample time to spawn it.
    if (!running && (seen || Date.now() - started > 10_000)) {
      controller.abort(
        new Error(`MiniBrowser ${seen ? 'exited' : 'did not start'} during New Session`),
      );
    }
  }, 100);
  return { signal: controller.signal, stop: () => clearInterval(timer) };
}

function killNow(started: Started) {
  signalGroup(started.driver, 'SIGKILL');
  signalGroup(started.xvfb, 'SIGKILL');
  rmSync(started.dir, { recursive: true, force: true });
  started.reaper?.kill('SIGKILL');
}

function close(started: Started): Promise<void> {
  started.closed ??= (async () => {
    if (started.session) await started.session.delete().catch(() => {});
    await stopGroup(started.driver, 3_000);
    await stopGroup(started.xvfb, 2_000);
    rmSync(started.dir, { recursive: true, force: true });
    started.reaper?.kill('SIGKILL');
    live.delete(started);
  })();
  return started.closed;
}
