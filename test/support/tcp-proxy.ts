import net from 'node:net';

/**
 * How the proxy treats traffic: `pass` forwards it; `pause` keeps connections open (and accepts
 * new ones) but holds every byte, as a server or network that stopped answering; `delay` forwards
 * each chunk late; `cut` drops every connection and closes new ones at once, as a server gone.
 */
export type ProxyMode =
  | { kind: 'pass' }
  | { kind: 'pause' }
  | { kind: 'delay'; ms: number }
  | { kind: 'cut' };

export interface TcpProxy {
  /** The loopback port clients connect to. */
  port: number;
  readonly mode: ProxyMode;
  /** Connections open now. */
  readonly connections: number;
  pass(): void;
  pause(): void;
  delay(ms: number): void;
  cut(): void;
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream: net.Socket;
}

/**
 * A TCP proxy on a free loopback port to `127.0.0.1:targetPort`, in `pass` mode, or `pause`d
 * from the start: a test can hold a client mid-connect and let it through when it has looked.
 */
export async function startTcpProxy(
  targetPort: number,
  initial: 'pass' | 'pause' = 'pass',
): Promise<TcpProxy> {
  let mode: ProxyMode = { kind: initial };
  const pairs = new Set<Pair>();

  const forward = (from: net.Socket, to: net.Socket) => {
    from.on('data', (chunk) => {
      if (mode.kind === 'delay') {
        // Each chunk late by the same time, so they stay in order (timers of equal delay fire
        // in the order they were set); a latency, not a bandwidth limit.
        setTimeout(() => {
          if (!to.destroyed) to.write(chunk);
        }, mode.ms);
      } else if (!to.write(chunk)) {
        from.pause();
        to.once('drain', () => {
          if (mode.kind !== 'pause') from.resume();
        });
      }
    });
    from.on('end', () => to.end());
    from.on('error', () => to.destroy());
    from.on('close', () => to.destroy());
  };

  const hold = (pair: Pair) => {
    pair.client.pause();
    pair.upstream.pause();
  };

  const server = net.createServer((client) => {
    if (mode.kind === 'cut') {
      client.destroy();
      return;
    }
    const upstream = net.connect(targetPort, '127.0.0.1');
    const pair = { client, upstream };
    pairs.add(pair);
    client.on('close', () => pairs.delete(pair));
    forward(client, upstream);
    forward(upstream, client);
    if (mode.kind === 'pause') hold(pair);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });

  const proxy: TcpProxy = {
    port: (server.address() as net.AddressInfo).port,
    get mode() {
      return mode;
    },
    get connections() {
      return pairs.size;
    },
    pass() {
      mode = { kind: 'pass' };
      for (const { client, upstream } of pairs) {
        client.resume();
        upstream.resume();
      }
    },
    pause() {
      mode = { kind: 'pause' };
      for (const pair of pairs) hold(pair);
    },
    delay(ms) {
      proxy.pass();
      mode = { kind: 'delay', ms };
    },
    cut() {
      mode = { kind: 'cut' };
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
    },
    async close() {
      proxy.cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
