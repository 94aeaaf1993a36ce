// `npx bridge keys list` against `node -e 0` on the same machine: each command's wall time from
// spawn to exit, in turn (A B C A B C …, so drift hits all alike), and each run's ratio to the
// `node -e 0` run beside it (target ≤ 10×). The CLI's own share is the bin run without npx.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureBuilt } from '../scripts/build-cache.mjs';
import { runBridgeCli } from '../test/support/bridge-cli';
import { fmt, median } from './support/load';

const ROOT = path.resolve(import.meta.dirname, '..');
const RUNS = 11;
const EMAIL = 'demo@bridgekit.dev';

/** Milliseconds from spawning `command` to its exit; throws unless it exits 0. */
function timeRun(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0) resolve(performance.now() - started);
      else reject(new Error(`${command} ${args.join(' ')} exited ${code}`));
    });
  });
}

export async function run() {
  await ensureBuilt('server');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bk-bench-cli-'));
  try {
    const env = { ...process.env, BRIDGE_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
    const created = await runBridgeCli(['keys', 'create', '--email', EMAIL], env);
    if (created.code !== 0) throw new Error(`keys create failed: ${created.stderr}`);
    const list = ['keys', 'list', '--email', EMAIL];
    const commands: [string, string, string[]][] = [
      ['`node -e 0` (floor)', process.execPath, ['-e', '0']],
      ['`node_modules/.bin/bridge keys list`', path.join(ROOT, 'node_modules/.bin/bridge'), list],
      ['`npx bridge keys list`', 'npx', ['bridge', ...list]],
    ];
    const times = commands.map(() => [] as number[]);
    for (let i = 0; i <= RUNS; i++) {
      for (const [c, [, command, args]] of commands.entries()) {
        const ms = await timeRun(command, args, env);
        if (i > 0) times[c]!.push(ms); // the first round warms the file cache
      }
    }
    const floor = times[0]!;
    console.log(`\n## CLI start-up (${RUNS} rounds)\n`);
    console.log('| command | median wall ms | median ratio to `node -e 0` | target |');
    console.log('| --- | --- | --- | --- |');
    for (const [c, [name]] of commands.entries()) {
      const ratio = median(times[c]!.map((ms, i) => ms / floor[i]!));
      const target = c === 0 ? '' : '≤ 10×';
      console.log(`| ${name} | ${fmt(median(times[c]!), 0)} | ${fmt(ratio, 2)}× | ${target} |`);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
