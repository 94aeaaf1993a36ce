import dgram from 'node:dgram';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const NAMESERVER = '127.0.0.77';

/**
 * A DNS server on loopback that never answers, and a `launch` wrapper that starts the bridge in
 * its own mount namespace with a resolv.conf pointing there (30 s timeout, one attempt), so its
 * lookups of names outside /etc/hosts hang past any verify deadline. Needs root (port 53, mount).
 */
export async function startBlackHoleDns() {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(53, NAMESERVER, () => resolve());
  });
  let queries = 0;
  socket.on('message', () => {
    queries++;
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-dns-'));
  const conf = path.join(dir, 'resolv.conf');
  fs.writeFileSync(conf, `nameserver ${NAMESERVER}\noptions timeout:30 attempts:1\n`);
  return {
    queries: () => queries,
    launch: (command: string, args: string[]): [string, string[]] => [
      'unshare',
      [
        '--mount',
        'sh',
        '-c',
        `mount --bind '${conf}' /etc/resolv.conf && exec "$0" "$@"`,
        command,
        ...args,
      ],
    ],
    async close() {
      await new Promise<void>((resolve) => socket.close(() => resolve()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
