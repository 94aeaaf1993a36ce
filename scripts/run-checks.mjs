// Runs npm scripts at the same time, each one's output held and printed whole when it ends (so
// the logs do not interleave), and fails when any of them fails. `npm test` runs its checks
// before the suite this way: each is mostly one process on one core, and none needs another's
// result. `node scripts/run-checks.mjs <script>…`
import { spawn } from 'node:child_process';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Runs `npm run -s <script>`; resolves to its exit code, output and wall time. */
function runScript(script) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(NPM, ['run', '-s', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (err) => (output += `${err.message}\n`));
    child.on('close', (code, signal) =>
      resolve({ script, code: code ?? 1, signal, output, seconds: (Date.now() - started) / 1000 }),
    );
  });
}

const scripts = process.argv.slice(2);
if (scripts.length === 0) {
  console.error('usage: node scripts/run-checks.mjs <npm script>…');
  process.exit(2);
}

const results = await Promise.all(
  scripts.map((script) =>
    runScript(script).then((result) => {
      const verdict =
        result.code === 0 ? 'ok' : `failed (${result.signal ?? `exit ${result.code}`})`;
      process.stdout.write(`\n> ${script}: ${verdict} in ${result.seconds.toFixed(1)} s\n`);
      if (result.output.trim()) process.stdout.write(`${result.output.trimEnd()}\n`);
      return result;
    }),
  ),
);
const failed = results.filter((result) => result.code !== 0).map((result) => result.script);
if (failed.length > 0) {
  console.error(`\nfailed: ${failed.join(', ')}`);
  process.exit(1);
}
