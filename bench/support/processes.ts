import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { buildServer, serveNodeFlags } from '../../server/build.mjs';
import { freePort } from '../../test/support/free-port';

const root = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

async function waitFor(url: string, timeoutMs = 20_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}

/** CPU time (user + system, ms) a process has used so far, from /proc. */
export function cpuMsOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

function statusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
}

export interface BridgeProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  env: Record<string, string>;
  cli(...args: string[]): Promise<string>;
  rssMb(): number;
  /** Peak RSS since the process started (VmHWM), in MB. */
  peakRssMb(): number;
  stop(): Promise<void>;
}

/** The real bridge (`server/src/main.ts`) in its own process, as a user runs it. */
export async function startBridgeProcess(
  extraEnv: Record<string, string> = {},
): Promise<BridgeProcess> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-bench-'));
  const port = await freePort();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'production',
    PORT: String(port),
    HOST: '127.0.0.1',
    BRIDGE_DATA_DIR: dataDir,
    BRIDGE_SECRET_KEY: randomBytes(32).toString('base64'),
    BRIDGE_SESSION_SECRET: randomBytes(32).toString('base64url'),
    BRIDGE_RATE_LIMIT_PER_MINUTE: '1000000',
    BRIDGE_SSO_RATE_LIMIT_PER_MINUTE: '1000000',
    LOG_LEVEL: 'info',
    ...extraEnv,
  };
  await buildServer();
  // The flags `npm start` runs the bridge with; BENCH_NODE_ARGS adds more (e.g. `--cpu-prof
  // --cpu-prof-dir=/tmp/prof` to profile it under load).
  const nodeArgs = [
    ...serveNodeFlags(),
    ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
  ];
  const child = spawn(process.execPath, [...nodeArgs, path.join(root, 'server/dist/main.js')], {
    env,
    stdio: ['ignore', process.env.BENCH_STDOUT ? 'inherit' : 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/healthz`);
  return {
    url,
    pid: child.pid ?? 0,
    child,
    env,
    async cli(...args) {
      const { stdout } = await run(path.join(root, 'node_modules/.bin/bridge'), args, { env });
      return stdout.trim();
    },
    rssMb: () => statusMb(child.pid ?? 0, 'VmRSS'),
    peakRssMb: () => statusMb(child.pid ?? 0, 'VmHWM'),
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function startBareProcess(body: string, method = 'GET', route = '/') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-bare-'));
  const file = path.join(dir, 'body.json');
  fs.writeFileSync(file, body);
  // One node process (not the tsx launcher), so its pid is the server's for CPU readings.
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(import.meta.dirname, 'bare-server.ts'), file, method, route],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port: number = await new Promise((resolve) =>
    child.stdout!.once('data', (d) => resolve(Number(String(d).trim()))),
  );
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid ?? 0,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  total: number;
}

export async function load(options: autocannon.Options): Promise<LoadResult> {
  const r = await autocannon(options);
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    total: r.requests.total,
  };
}

export const fmt = (n: number, digits = 1) => n.toFixed(digits);
