import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../../..');
const EXAMPLE = path.join(ROOT, 'examples/host-app');
export const PACKAGES = ['contract', 'client', 'node', 'react'] as const;

/**
 * Our environment as a host's shell has it: without npm's own variables (a child npm started
 * from `npm test` would otherwise take the repository, npm_config_local_prefix…, for its
 * project) and without what Vitest sets (NODE_ENV=test would make a host's build a development
 * build).
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    const lower = name.toLowerCase();
    if (lower.startsWith('npm_') || lower.startsWith('vitest') || name === 'NODE_ENV') continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}

export interface Run {
  code: number;
  /** stdout then stderr. */
  output: string;
  stdout: string;
  ms: number;
}

/** Runs a command to its end; never throws, the caller checks `code`. */
export function run(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = cleanEnv(),
  timeoutMs = 10 * 60_000,
): Promise<Run> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd, env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, output: `${stdout}\n${stderr}`, stdout, ms: Date.now() - started });
      },
    );
  });
}

export interface Packed {
  name: string;
  version: string;
  filename: string;
  /** Bytes of the tarball. */
  size: number;
  unpackedSize: number;
  files: { path: string; size: number }[];
}

/** Packs the four packages into `dir` with `npm pack` (its prepack builds each one's dist/). */
export async function packAll(dir: string): Promise<Packed[]> {
  const workspaces = PACKAGES.flatMap((name) => ['-w', `packages/${name}`]);
  const result = await run(
    'npm',
    ['pack', ...workspaces, '--pack-destination', dir, '--json'],
    ROOT,
  );
  if (result.code !== 0) throw new Error(`npm pack failed:\n${result.output}`);
  return JSON.parse(result.stdout) as Packed[];
}

/** A copy of examples/host-app in `dir`, without its installs and builds. */
export function copyExample(dir: string): string {
  const skipped = new Set(['node_modules', 'build', 'dist']);
  cpSync(EXAMPLE, dir, {
    recursive: true,
    filter: (source) => !skipped.has(path.relative(EXAMPLE, source).split(path.sep)[0] ?? ''),
  });
  return dir;
}

/** Installs the tarballs and the copy's other dependencies, from npm's cache where it can. */
export function installTarballs(app: string, tarballs: string[]): Promise<Run> {
  return run(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs],
    app,
  );
}

export const readJson = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8'));

export interface ExampleBackend {
  origin: string;
  output(): string;
  stop(): Promise<void>;
}

/** `node build/server/main.js` of the copy; resolves once it says where it listens. */
export async function startExampleBackend(
  app: string,
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<ExampleBackend> {
  const child: ChildProcess = spawn(process.execPath, ['build/server/main.js'], {
    cwd: app,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const listening = /Example host app on (\S+)/.exec(output);
    if (listening?.[1]) return { origin: listening[1], output: () => output, stop };
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`the example backend did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
