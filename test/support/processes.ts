import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildServer, SERVER_BUNDLE, serveNodeFlags } from '../../server/build.mjs';
import { createApiKeyForEmail } from '../../server/src/domain/api-key-admin';
import { openStore } from '../../server/src/store/db';
import { freePort } from './free-port';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MAIN = SERVER_BUNDLE;

let built: Promise<void> | undefined;

/** Builds `server/dist/main.js` once per test worker (see server/build.mjs). */
export function buildBridge(): Promise<void> {
  built ??= buildServer().then(() => undefined);
  return built;
}

/** What several bridge processes must share to act as one: the data and the secrets. */
export interface BridgeData {
  dataDir: string;
  databaseUrl: string | undefined;
  secretKey: string;
  sessionSecret: string;
}

export function newBridgeData(databaseUrl?: string): BridgeData {
  return {
    dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'bk-scale-')),
    databaseUrl,
    secretKey: randomBytes(32).toString('base64'),
    sessionSecret: randomBytes(32).toString('base64url'),
  };
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface BridgeProcess {
  url: string;
  port: number;
  pid: number;
  child: ChildProcess;
  /** Resolves when the process has exited. */
  exited: Promise<Exit>;
  alive(): boolean;
  /** Everything the process wrote to stdout (pino JSON lines) and stderr. */
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit. */
  stop(graceMs?: number): Promise<Exit>;
}

/** Runs the bundle with `npm run serve`'s node flags, as a production user would; waits for `/healthz`. */
export async function startBridgeProcess(
  data: BridgeData,
  env: Record<string, string> = {},
): Promise<BridgeProcess> {
  await buildBridge();
  const port = await freePort();
  const child = spawn(process.execPath, [...serveNodeFlags(), MAIN], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      BRIDGE_DATA_DIR: data.dataDir,
      BRIDGE_SECRET_KEY: data.secretKey,
      BRIDGE_SESSION_SECRET: data.sessionSecret,
      LOG_LEVEL: 'warn',
      ...(data.databaseUrl ? { DATABASE_URL: data.databaseUrl } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    err += chunk;
  });
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let done = false;
  void exited.then(() => {
    done = true;
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (done) {
      const exit = await exited;
      throw new Error(`bridge exited during start (${JSON.stringify(exit)}):\n${out}\n${err}`);
    }
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {}
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`bridge did not come up:\n${out}\n${err}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    port,
    pid: child.pid!,
    child,
    exited,
    alive: () => !done,
    stdout: () => out,
    stderr: () => err,
    async stop(graceMs = 10_000) {
      if (done) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const exit = await exited;
      clearTimeout(timer);
      return exit;
    },
  };
}

/** A new user and API key written straight into the bridge's store (as `bridge keys create`). */
export async function createApiKey(
  data: BridgeData,
  email = `u-${randomBytes(4).toString('hex')}@example.com`,
): Promise<{ key: string; keyId: string; userId: string; email: string }> {
  const store = openStore({ databaseUrl: data.databaseUrl, dataDir: data.dataDir, poolSize: 1 });
  try {
    const { id, key, userId } = await createApiKeyForEmail(store.db, { email }, new Date());
    return { key, keyId: id, userId, email };
  } finally {
    await store.close();
  }
}

export const removeBridgeData = (data: BridgeData) =>
  fs.rmSync(data.dataDir, { recursive: true, force: true });
