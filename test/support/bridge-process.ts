import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { buildServer, SERVER_BUNDLE, serveNodeFlags } from '../../server/build.mjs';
import { runBridgeCli } from './bridge-cli';
import { type BridgeData, newBridgeData, removeBridgeData } from './bridge-data';
import { freePort } from './free-port';
import { peakRssMbOf, rssMbOf } from './proc-stats';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SOURCES_MAIN = path.join(ROOT, 'server/src/main.ts');

let built: Promise<string> | undefined;

/** Builds `server/dist/main.js` once per process (a test worker, a bench run). */
export function buildBridge(): Promise<string> {
  built ??= buildServer();
  return built;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** `capture` keeps the output for `stdout()`/`stderr()`, `inherit` shows it, `ignore` drops it. */
export type Output = 'capture' | 'inherit' | 'ignore';

export interface BridgeProcessOptions {
  /**
   * Data dir and secrets, for processes that must act as one; the caller removes them.
   * Default: fresh ones that `stop()` removes.
   */
  data?: BridgeData;
  /** Set last: adds variables and overrides any default. */
  env?: Record<string, string>;
  /**
   * `bundle` (default): `server/dist/main.js` under `npm run serve`'s node flags, with
   * NODE_ENV=production, HOST=127.0.0.1, LOG_LEVEL=warn and the data's secrets, as users run it.
   * `sources`: `server/src/main.ts` through tsx with only PATH, HOME, PORT, the data dir and
   * DATABASE_URL set (and background jobs off), so every other setting is the bridge's own
   * default (development).
   */
  entry?: 'bundle' | 'sources';
  /**
   * With `entry: 'bundle'`: another build's `main.js` to run (e.g. a previous release's), under
   * this release's serve flags; default this release's, built on first use.
   */
  bundle?: string;
  /** More node flags, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`. */
  nodeArgs?: string[];
  /**
   * Wraps the node command line, e.g. to start it in a namespace: given the command and its
   * arguments, the command and arguments to spawn instead. The wrapper must `exec` node, so
   * `pid` stays the server's.
   */
  launch?: (command: string, args: string[]) => [string, string[]];
  /** Default `capture`. */
  stdout?: Output;
  /** Default `capture`. */
  stderr?: Output;
  /** What starting waits for: a 200 from `/healthz` (default), a text on stdout, or nothing. */
  ready?: 'healthz' | { stdout: string } | 'none';
}

export interface BridgeProcess {
  url: string;
  port: number;
  pid: number;
  child: ChildProcess;
  /** The whole environment it runs with. */
  env: Record<string, string>;
  /** Resolves when the process has exited. */
  exited: Promise<Exit>;
  alive(): boolean;
  /** What the process wrote so far (pino JSON lines and plain text), when captured. */
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout holds `text`; throws if the process exits first or time runs out. */
  waitForOutput(text: string, timeoutMs?: number): Promise<void>;
  /** Runs the `bridge` CLI on this process's environment; its stdout, trimmed. Throws on failure. */
  cli(...args: string[]): Promise<string>;
  /** Resident set size now, in MB. */
  rssMb(): number;
  /** Peak resident set size since start (VmHWM), in MB. */
  peakRssMb(): number;
  /**
   * SIGTERM, then SIGKILL after `graceMs`; resolves with the exit. Removes the data when the
   * starter made it.
   */
  stop(graceMs?: number): Promise<Exit>;
}

function environment(
  entry: 'bundle' | 'sources',
  data: BridgeData,
  port: number,
  env: Record<string, string>,
): Record<string, string> {
  const common = {
    PATH: process.env.PATH ?? '',
    PORT: String(port),
    BRIDGE_DATA_DIR: data.dataDir,
    // Tests' data sources name hosts that must never be looked up; a test that wants health
    // checks and syncs turns them on.
    BRIDGE_BACKGROUND_JOBS: 'false',
    ...(data.databaseUrl ? { DATABASE_URL: data.databaseUrl } : {}),
  };
  if (entry === 'sources') return { ...common, HOME: process.env.HOME ?? '', ...env };
  return {
    ...common,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    BRIDGE_SECRET_KEY: data.secretKey,
    BRIDGE_SESSION_SECRET: data.sessionSecret,
    LOG_LEVEL: 'warn',
    ...env,
  };
}

async function nodeArguments(options: BridgeProcessOptions): Promise<string[]> {
  const extra = options.nodeArgs ?? [];
  // One node process in both cases, so `pid` is the server's (signals, /proc readings).
  if (options.entry === 'sources') {
    return ['--conditions=bridgekit-source', '--import', 'tsx', ...extra, SOURCES_MAIN];
  }
  if (options.bundle) return [...serveNodeFlags(), ...extra, options.bundle];
  await buildBridge();
  return [...serveNodeFlags(), ...extra, SERVER_BUNDLE];
}

const stdio = (output: Output = 'capture') => (output === 'capture' ? 'pipe' : output);

/**
 * The real bridge in its own process on a free loopback port, on `options.data` or on fresh
 * data of its own; resolves once it is ready (see `ready`).
 */
export async function startBridgeProcess(
  options: BridgeProcessOptions = {},
): Promise<BridgeProcess> {
  const data = options.data ?? newBridgeData();
  const ownsData = options.data === undefined;
  const port = await freePort();
  const env = environment(options.entry ?? 'bundle', data, port, options.env ?? {});
  const [command, args] = (options.launch ?? ((c, a) => [c, a]))(
    process.execPath,
    await nodeArguments(options),
  );
  const child = spawn(command, args, {
    cwd: ROOT,
    env,
    stdio: ['ignore', stdio(options.stdout), stdio(options.stderr)],
  });
  const bridge = watch(child, port, env, () => {
    if (ownsData) removeBridgeData(data);
  });
  try {
    const ready = options.ready ?? 'healthz';
    if (ready === 'healthz') await waitForHealthz(bridge);
    else if (ready !== 'none') await bridge.waitForOutput(ready.stdout, 30_000);
  } catch (error) {
    await bridge.stop(0);
    throw error;
  }
  return bridge;
}

function watch(
  child: ChildProcess,
  port: number,
  env: Record<string, string>,
  cleanUp: () => void,
): BridgeProcess {
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    err += chunk;
  });
  let done = false;
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => {
      done = true;
      resolve({ code, signal });
    }),
  );
  const pid = child.pid ?? 0;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    pid,
    child,
    env,
    exited,
    alive: () => !done,
    stdout: () => out,
    stderr: () => err,
    async waitForOutput(text, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!out.includes(text)) {
        if (done)
          throw new Error(`bridge exited (${JSON.stringify(await exited)}):\n${out}\n${err}`);
        if (Date.now() > deadline)
          throw new Error(`timed out waiting for "${text}":\n${out}\n${err}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async cli(...args) {
      const result = await runBridgeCli(args, env);
      if (result.code !== 0) throw new Error(`bridge ${args.join(' ')}: ${result.stderr}`);
      return result.stdout.trim();
    },
    rssMb: () => rssMbOf(pid),
    peakRssMb: () => peakRssMbOf(pid),
    async stop(graceMs = 10_000) {
      if (!done) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      cleanUp();
      return exited;
    },
  };
}

async function waitForHealthz(bridge: BridgeProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (!bridge.alive()) {
      const exit = await bridge.exited;
      throw new Error(
        `bridge exited during start (${JSON.stringify(exit)}):\n${bridge.stdout()}\n${bridge.stderr()}`,
      );
    }
    try {
      if ((await fetch(`${bridge.url}/healthz`)).ok) return;
    } catch {}
    if (Date.now() > deadline) {
      throw new Error(`bridge did not come up:\n${bridge.stdout()}\n${bridge.stderr()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
