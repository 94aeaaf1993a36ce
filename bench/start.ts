// `npm start` with nothing changed since the last build: the time from the command to the
// first 200 from /healthz (target ≤ 3 s), next to `node -e` on the same machine as the floor,
// and the full-embed bundle's gzipped size (target ≤ 100 kB; size-limit enforces it in tests).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { ensureBuilt } from '../scripts/build-cache.mjs';
import { freePort } from '../test/support/free-port';
import { fmt, median } from './support/load';

const ROOT = path.resolve(import.meta.dirname, '..');
const RUNS = 5;

async function untilHealthy(url: string, deadline: number): Promise<void> {
  while (performance.now() < deadline) {
    const ok = await fetch(url).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${url} did not answer 200 in time`);
}

/** Milliseconds from spawning `npm start` to the first healthy /healthz; then stops it. */
async function timeStart(dataDir: string): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn('npm', ['start'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), BRIDGE_DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => {
    stderr = (stderr + String(chunk)).slice(-4000);
  });
  let gone = false;
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      gone = true;
      resolve(code);
    }),
  );
  try {
    // A start that dies is a failed run, said with what it printed, not a wait for the deadline.
    await Promise.race([
      untilHealthy(`http://127.0.0.1:${port}/healthz`, started + 30_000),
      exited.then((code) => {
        throw new Error(`npm start exited (${code}) before /healthz answered:\n${stderr}`);
      }),
    ]);
    return performance.now() - started;
  } finally {
    if (!gone && child.pid) stopGroup(child.pid);
    await exited;
  }
}

/** SIGTERM to a process group, which may have exited since it was last seen (nothing to stop). */
function stopGroup(pid: number) {
  try {
    process.kill(-pid, 'SIGTERM');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

async function timeNode(): Promise<number> {
  const started = performance.now();
  await new Promise((resolve) => spawn(process.execPath, ['-e', '0']).once('exit', resolve));
  return performance.now() - started;
}

export async function run() {
  await ensureBuilt('embed');
  await ensureBuilt('server');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bk-bench-start-'));
  try {
    await timeStart(dataDir); // first start: creates the demo organization; not measured
    const starts: number[] = [];
    const nodes: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      starts.push(await timeStart(dataDir));
      nodes.push(await timeNode());
    }
    const bundle = readFileSync(path.join(ROOT, 'packages/react/dist/embed/embed.js'));
    console.log(`\n## npm start, nothing changed\n`);
    console.log('| measure | median of 5 | target |');
    console.log('| --- | --- | --- |');
    console.log(
      `| \`npm start\` → /healthz 200 | ${fmt(median(starts) / 1000, 2)} s (runs: ${starts.map((ms) => fmt(ms / 1000, 2)).join(', ')}) | ≤ 3 s |`,
    );
    console.log(`| \`node -e 0\` on this machine (floor) | ${fmt(median(nodes), 0)} ms | |`);
    console.log(
      `| embed bundle, production build | ${fmt(bundle.length / 1024)} kB, ${fmt(gzipSync(bundle).length / 1024)} kB gzip | ≤ 100 kB gzip |`,
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
