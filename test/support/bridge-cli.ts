import { execFile } from 'node:child_process';
import path from 'node:path';
import { ensureBuilt } from '../../scripts/build-cache.mjs';

const BIN = path.resolve(import.meta.dirname, '../../node_modules/.bin/bridge');

export interface CliResult {
  /** The exit code (-1 when it was killed, e.g. by the timeout). */
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** The directory it runs in (default: this process's). */
  cwd?: string;
  /** Another `bridge` bin (a copy of the repository), instead of this checkout's. */
  bin?: string;
}

// Built once per test process, so no run of the bin finds its bundle stale (and says so).
let built: Promise<boolean> | undefined;

/**
 * Runs the real `bridge` bin with only the given environment (plus PATH, HOME and
 * NODE_ENV=test unless given). Never throws for a failing command: the caller checks `code`.
 */
export async function runBridgeCli(
  args: string[],
  env: Record<string, string | undefined>,
  timeoutMs = 60_000,
  options: CliOptions = {},
): Promise<CliResult> {
  if (!options.bin) {
    built ??= ensureBuilt('server');
    await built;
  }
  return new Promise((resolve) => {
    execFile(
      options.bin ?? BIN,
      args,
      {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'test', ...env },
        timeout: timeoutMs,
        cwd: options.cwd,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
