import net from 'node:net';

export interface GateProxy {
  port: number;
  /** Connections accepted while closed wait (no byte passes) until the gate opens. */
  open(): void;
  close(): Promise<void>;
}

/**
 * A TCP forwarder on a free loopback port to `127.0.0.1:targetPort`, closed at first: a test
 * can hold a client mid-connect (a sync stays SYNCING) and let it through when it has looked.
 * When the target refuses, the client's connection is reset.
 */
export async function startGateProxy(targetPort: number): Promise<GateProxy> {
  let opened = false;
  const waiting: Array<() => void> = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    const forward = () => {
      if (client.destroyed) return;
      const upstream = net.connect(targetPort, '127.0.0.1');
      sockets.add(upstream);
      upstream.on('close', () => sockets.delete(upstream));
      upstream.on('error', () => client.resetAndDestroy());
      client.on('close', () => upstream.destroy());
      upstream.on('connect', () => {
        client.pipe(upstream);
        upstream.pipe(client);
      });
    };
    client.pause();
    if (opened) forward();
    else waiting.push(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    open() {
      opened = true;
      for (const go of waiting.splice(0)) go();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
