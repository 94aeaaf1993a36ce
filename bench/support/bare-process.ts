import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A bare Express app answering one route with `body` (see bare-server.ts): the ceiling. */
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
