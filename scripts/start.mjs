// `npm start`: builds the full-embed bundle and the server bundles (the bridge and the CLI) if
// (and only if) their sources changed, then runs the bridge exactly as `npm run serve -w server`
// does, in the foreground, passing signals on so Ctrl-C and `kill` shut it down gracefully.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { serveNodeFlags } from '../server/build.mjs';
import { ensureBuilt } from './build-cache.mjs';

const SERVER = path.resolve(import.meta.dirname, '../server');

await ensureBuilt('embed');
await ensureBuilt('server');

const child = spawn(process.execPath, [...serveNodeFlags(), 'dist/main.js'], {
  cwd: SERVER,
  // The bridge runs in server/; a relative BRIDGE_DATA_DIR stays relative to where the command
  // was typed (npm sets INIT_CWD; run as `node scripts/start.mjs`, that is this directory).
  env: { ...process.env, INIT_CWD: process.env.INIT_CWD ?? process.cwd() },
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => child.kill(signal));
}
child.on('exit', (code, signal) => {
  process.exitCode = code ?? (signal ? 128 : 1);
});
