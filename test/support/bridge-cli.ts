import { execFile } from 'node:child_process';
import path from 'node:path';

const BIN = path.resolve(import.meta.dirname, '../../node_modules/.bin/bridge');

export interface CliResult {
  /** The exit code (-1 when it was killed, e.g. by the timeout). */
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real `bridge` bin with only the given environment (plus PATH, HOME and
 * NODE_ENV=test unless given). Never throws for a failing command: the caller checks `code`.
 */
export function runBridgeCli(
  args: string[],
  env: Record<string, string | undefined>,
  timeoutMs = 60_000,
): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      BIN,
      args,
      {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'test', ...env },
        timeout: timeoutMs,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
