import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyConnection } from '../../src/verify/verify';

/** Accepts connections and never answers (or answers `greeting` and then stalls). */
async function silentServer(greeting?: string) {
  const sockets: Socket[] = [];
  const closed: Promise<void>[] = [];
  const server: Server = createServer((socket) => {
    sockets.push(socket);
    closed.push(new Promise((resolve) => socket.once('close', () => resolve())));
    socket.resume();
    socket.on('error', () => {});
    if (greeting) socket.once('data', () => socket.write(greeting));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    sockets,
    closed,
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const body = (port: number) =>
  ({ dialect: 'POSTGRES', host: '127.0.0.1', port, username: 'u', password: 'secret-pw' }) as const;

describe('verifyConnection deadline', () => {
  let silent: Awaited<ReturnType<typeof silentServer>>;
  let tlsStall: Awaited<ReturnType<typeof silentServer>>;
  beforeAll(async () => {
    silent = await silentServer();
    tlsStall = await silentServer('S'); // accepts SSLRequest, then never speaks TLS
  });
  afterAll(async () => {
    await Promise.all([silent.stop(), tlsStall.stop()]);
  });

  it('times out on time, names the service address, and closes the connection', async () => {
    const started = performance.now();
    const outcome = await verifyConnection(body(silent.port), {
      timeoutMs: 500,
      allowPrivateNetworks: true,
      serviceIp: '203.0.113.7',
    });
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(490);
    expect(elapsed).toBeLessThan(500 + 150);
    expect(outcome).toEqual({
      ok: false,
      reason: 'timeout',
      detail: expect.stringContaining('allow 203.0.113.7 in the database firewall'),
      fieldErrors: { host: expect.stringContaining('203.0.113.7') },
      params: { serviceIp: '203.0.113.7' },
    });
    expect(JSON.stringify(outcome)).not.toContain('secret-pw');
    // The server side sees the client go away: nothing was left open.
    await expect(
      Promise.race([
        Promise.all(silent.closed),
        new Promise((_, reject) => setTimeout(() => reject(new Error('socket left open')), 500)),
      ]),
    ).resolves.toBeDefined();
  });

  it('times out without naming an address when no service IP is configured', async () => {
    const outcome = await verifyConnection(body(silent.port), {
      timeoutMs: 200,
      allowPrivateNetworks: true,
    });
    expect(outcome).toMatchObject({ ok: false, reason: 'timeout' });
    expect(outcome.ok ? '' : outcome.detail).not.toMatch(/\d+\.\d+\.\d+\.\d+/);
  });

  it('times out during the TLS handshake and tears the TLS socket down', async () => {
    const before = tlsStall.closed.length;
    const started = performance.now();
    const outcome = await verifyConnection(body(tlsStall.port), {
      timeoutMs: 300,
      allowPrivateNetworks: true,
    });
    expect(performance.now() - started).toBeLessThan(300 + 150);
    expect(outcome).toMatchObject({
      ok: false,
      reason: 'timeout',
      fieldErrors: { host: expect.any(String) },
    });
    expect(tlsStall.closed.length).toBe(before + 1);
    await Promise.all(tlsStall.closed);
  });

  it('keeps the event loop free while it waits', async () => {
    let ticks = 0;
    let maxGap = 0;
    let last = performance.now();
    let running = true;
    const tick = () => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
      ticks++;
      if (running) setTimeout(() => setImmediate(tick), 10);
    };
    tick();
    const outcome = await verifyConnection(body(silent.port), {
      timeoutMs: 500,
      allowPrivateNetworks: true,
    });
    running = false;
    expect(outcome).toMatchObject({ ok: false, reason: 'timeout' });
    expect(ticks).toBeGreaterThanOrEqual(25);
    expect(maxGap).toBeLessThan(150);
  });
});
