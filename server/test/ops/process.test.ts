import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BridgeData,
  newBridgeData,
  removeBridgeData,
} from '../../../test/support/bridge-data';
import {
  type BridgeProcess,
  type BridgeProcessOptions,
  type Exit,
  startBridgeProcess,
} from '../../../test/support/bridge-process';

const KEY = /bk_key_[A-Za-z0-9]{32}/;

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
  let data: BridgeData;
  let first: BridgeProcess;
  /** Started alongside the first server; it stops at once. */
  let bad: BridgeProcess;
  /** The real server from its sources (tsx), with only the given environment. */
  const fromSources = (env: Record<string, string> = {}): BridgeProcessOptions => ({
    data,
    entry: 'sources',
    env: { NODE_ENV: 'development', ...env },
    ready: { stdout: 'bridge listening on' },
  });

  beforeAll(async () => {
    data = newBridgeData();
    [first, bad] = await Promise.all([
      startBridgeProcess(fromSources()),
      startBridgeProcess({ ...fromSources({ PORT: 'abc' }), ready: 'none' }),
    ]);
  });
  afterAll(() => {
    first.child.kill('SIGKILL');
    bad.child.kill('SIGKILL');
    removeBridgeData(data);
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

    it('keeps an idle connection 65 s by default, and says so (above a balancer idle timeout of 60 s)', async () => {
      const header = await new Promise<string | undefined>((resolve, reject) => {
        http
          .get(`http://127.0.0.1:${first.port}/healthz`, (res) => {
            res.resume();
            resolve(res.headers['keep-alive'] as string | undefined);
          })
          .on('error', reject);
      });
      expect(header).toBe('timeout=65');
    });
  });

  describe('SIGTERM', () => {
    let inFlightStatus: number;
    let exit: Exit;
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
          await first.waitForOutput('shutting down');
          req.end(body.slice(10));
          exit = await first.exited;
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
      expect(exit.code).toBe(0);
      expect(exitMs).toBeLessThan(10_000);
    });

    it('does not wait for the keep-alive timeout once the last request is done', () => {
      // The idle connection would stay 65 s: an exit sooner means the drain let it go.
      expect(exitMs).toBeLessThan(4_000);
    });

    it('closes the port', async () => {
      expect(await portOpen(first.port)).toBe(false);
    });
  });

  describe('second start on the same data dir', () => {
    let second: BridgeProcess;

    beforeAll(async () => {
      second = await startBridgeProcess(fromSources());
    });
    afterAll(async () => {
      await second.stop();
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
      expect((await bad.exited).code).toBe(1);
    });

    it('names the variable on stderr', async () => {
      await bad.exited;
      expect(bad.stderr()).toMatch(/\bPORT\b/);
    });
  });
});
