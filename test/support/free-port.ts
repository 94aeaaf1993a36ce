import net from 'node:net';

/**
 * A loopback port that was free a moment ago: the OS picks it and it is released at once, for a
 * server the caller starts (or for a port that must refuse connections).
 */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
