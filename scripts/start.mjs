// `npm start`: builds the full-embed bundle and the server bundle if (and only if) their
// sources changed, then runs the bridge exactly as `npm run serve -w server` does, in the
// foreground, passing signals on so Ctrl-C and `kill` shut it down gracefully.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { serveNodeFlags } from '../server/build.mjs';
import { ensureBuilt } from './build-cache.mjs';

const SERVER = path.resolve(import.meta.dirname, '../server');

await ensureBuilt('embed');
await ensureBuilt('server');

const child = spawn(process.execPath, [...serveNodeFlags(), 'dist/main.js'], {
  cwd: SERVER,
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => child.kill(signal));
}
child.on('exit', (code, signal) => {
  process.exitCode = code ?? (signal ? 128 : 1);
});
