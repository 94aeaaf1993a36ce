import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../test/support/free-port';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
const KEY = /bk_key_[A-Za-z0-9]{32}/;

interface Running {
  child: ChildProcess;
  port: number;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>;
}

/** Spawns the real server from its sources (tsx), with only the given environment. */
function startServer(env: Record<string, string>, port: number): Running {
  const child = spawn(TSX, ['server/src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    err += chunk;
  });
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  return { child, port, stdout: () => out, stderr: () => err, exited };
}

async function waitForOutput(running: Running, text: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!running.stdout().includes(text)) {
    if (running.child.exitCode !== null) {
      throw new Error(`server exited early:\n${running.stdout()}\n${running.stderr()}`);
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for "${text}"`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('the server process', () => {
  let dataDir: string;
  let first: Running;
  /** Started alongside the first server; it stops at once. */
  let bad: Running;
  const env = () => ({ NODE_ENV: 'development', BRIDGE_DATA_DIR: dataDir });

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-process-'));
    first = startServer(env(), await freePort());
    bad = startServer({ ...env(), PORT: 'abc' }, 0);
    await waitForOutput(first, 'bridge listening on');
  });
  afterAll(() => {
    first.child.kill('SIGKILL');
    bad.child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  describe('first start', () => {
    it('prints the demo API key on stdout', () => {
      expect(first.stdout()).toContain('Bridgekit demo ready');
      expect(first.stdout()).toMatch(new RegExp(`^  ${KEY.source}$`, 'm'));
    });

    it('prints a ready-to-paste curl line with the key', () => {
      const key = KEY.exec(first.stdout())![0];
      expect(first.stdout()).toContain(
        `curl -H "Authorization: Bearer ${key}" http://localhost:${first.port}/api/public/organizations`,
      );
    });

    it('prints a key that works and sees the demo organization', async () => {
      const key = KEY.exec(first.stdout())![0];
      const res = await fetch(`http://127.0.0.1:${first.port}/api/public/organizations`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.data.map((o: { name: string }) => o.name)).toEqual(['Demo Organization']);
    });

    it('answers /healthz', async () => {
      const res = await fetch(`http://127.0.0.1:${first.port}/healthz`);
      expect(res.status).toBe(200);
    });
  });

  describe('SIGTERM', () => {
    let inFlightStatus: number;
    let exitCode: number | string;
    let exitMs: number;

    beforeAll(async () => {
      const key = KEY.exec(first.stdout())![0];
      const agent = new http.Agent({ keepAlive: true });
      // A keep-alive connection left idle after one request.
      await new Promise<void>((resolve, reject) => {
        http
          .get(`http://127.0.0.1:${first.port}/healthz`, { agent }, (res) => {
            res.resume();
            res.on('end', resolve);
          })
          .on('error', reject);
      });
      // A request still in flight: its body is only half sent when the signal arrives.
      const body = JSON.stringify({ name: 'Created During Shutdown' });
      const inFlight = new Promise<number>((resolve, reject) => {
        const req = http.request(`http://127.0.0.1:${first.port}/api/public/organizations`, {
          method: 'POST',
          agent,
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        });
        req.on('response', (res) => {
          res.resume();
          resolve(res.statusCode!);
        });
        req.on('error', reject);
        req.write(body.slice(0, 10));
        setTimeout(async () => {
          const started = Date.now();
          first.child.kill('SIGTERM');
          await waitForOutput(first, 'shutting down');
          req.end(body.slice(10));
          exitCode = await first.exited;
          exitMs = Date.now() - started;
        }, 300);
      });
      inFlightStatus = await inFlight;
      await first.exited;
      agent.destroy();
    }, 30_000);

    it('lets a request in flight finish', () => {
      expect(inFlightStatus).toBe(201);
    });

    it('exits 0 within 10 s', () => {
      expect(exitCode).toBe(0);
      expect(exitMs).toBeLessThan(10_000);
    });

    it('does not wait for the keep-alive timeout once the last request is done', () => {
      // Node's keep-alive timeout is 5 s: an exit sooner means the connection was let go.
      expect(exitMs).toBeLessThan(4_000);
    });

    it('closes the port', async () => {
      expect(await portOpen(first.port)).toBe(false);
    });
  });

  describe('second start on the same data dir', () => {
    let second: Running;

    beforeAll(async () => {
      second = startServer(env(), await freePort());
      await waitForOutput(second, 'bridge listening on');
    });
    afterAll(async () => {
      second.child.kill('SIGTERM');
      await second.exited;
    });

    it('prints no new key', () => {
      expect(second.stdout()).not.toMatch(KEY);
      expect(second.stdout()).not.toContain('Bridgekit demo ready');
    });

    it('keeps what the first run stored', async () => {
      const key = KEY.exec(first.stdout())![0];
      const res = await fetch(`http://127.0.0.1:${second.port}/api/public/organizations`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const body = await res.json();
      expect(body.data.map((o: { name: string }) => o.name).sort()).toEqual([
        'Created During Shutdown',
        'Demo Organization',
      ]);
    });
  });

  describe('a bad variable', () => {
    it('exits with code 1', async () => {
      expect(await bad.exited).toBe(1);
    });

    it('names the variable on stderr', async () => {
      await bad.exited;
      expect(bad.stderr()).toMatch(/\bPORT\b/);
    });
  });
});
