import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { keptAlive } from '../../src/http/keep-alive';

const REQUEST = 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';

/**
 * A raw connection, so no client-side pool closes it first (Node's Agent drops a socket a
 * second before the server's Keep-Alive hint): `ask` sends a request and resolves with the
 * response's head; `closed` resolves with how long after the last answer the server closed it.
 */
async function connection(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let answeredAt = 0;
  let pending: ((head: string) => void) | undefined;
  let buffer = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    // Every answer is "ok" with a Content-Length: complete once the body is in.
    if (pending && buffer.endsWith('\r\n\r\nok')) {
      answeredAt = Date.now();
      const head = buffer;
      buffer = '';
      pending(head);
      pending = undefined;
    }
  });
  const closed = new Promise<number>((resolve) =>
    socket.once('end', () => resolve(Date.now() - answeredAt)),
  );
  return {
    ask: () =>
      new Promise<string>((resolve) => {
        pending = resolve;
        socket.write(REQUEST);
      }),
    closed,
    destroy: () => socket.destroy(),
  };
}

describe('keptAlive (BRIDGE_KEEP_ALIVE_TIMEOUT_S)', () => {
  let server: http.Server | undefined;
  afterEach(async () => {
    const s = server;
    server = undefined;
    if (!s) return;
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  });

  it('sets the idle timeout and keeps the headers limit above it', () => {
    const s = keptAlive(http.createServer(), 65);
    expect(s.keepAliveTimeout).toBe(65_000);
    expect(s.headersTimeout).toBe(66_000);
    // A headers limit already longer than the idle timeout stays as it is.
    expect(keptAlive(http.createServer(), 5).headersTimeout).toBe(60_000);
  });

  it('serves the next request on an idle connection within the timeout and closes it after', async () => {
    server = keptAlive(
      http.createServer((_req, res) => res.end('ok')),
      1,
    );
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const conn = await connection((server.address() as AddressInfo).port);
    try {
      expect(await conn.ask()).toMatch(/\r\nKeep-Alive: timeout=1\r\n/i);
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(await conn.ask()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      const idleMs = await conn.closed;
      expect(idleMs).toBeGreaterThanOrEqual(900);
      expect(idleMs).toBeLessThan(10_000);
    } finally {
      conn.destroy();
    }
  });
});
