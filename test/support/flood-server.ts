import { createServer, type Server, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

// A database server that answers a connection with a message declaring ~2 GB and then sends
// it: the drivers buffer a message whole, so it tests what a connection may read.

export const MB = 1 << 20;
const CHUNK = Buffer.alloc(MB);

export interface Flood {
  port: number;
  /** Bytes written to each connection, closed or not (a write that is still buffered counts). */
  sent: number[];
  /** Resolves when every connection so far is closed. */
  allClosed(): Promise<void>;
  stop(): Promise<void>;
}

/** Writes `head` and then zeros without end, as fast as the peer reads, until it goes away. */
function pour(socket: Socket | TLSSocket, head: Buffer, sent: number[], i: number) {
  socket.write(head);
  const pump = () => {
    while (!socket.destroyed) {
      sent[i]! += CHUNK.length;
      if (!socket.write(CHUNK)) break;
    }
    if (!socket.destroyed) socket.once('drain', pump);
  };
  pump();
}

export async function floodServer(
  onConnection: (socket: Socket, pourAll: (s: Socket | TLSSocket, head: Buffer) => void) => void,
): Promise<Flood> {
  const sent: number[] = [];
  const closed: Promise<void>[] = [];
  const sockets: Socket[] = [];
  const server: Server = createServer((socket) => {
    const i = sent.push(0) - 1;
    sockets.push(socket);
    closed.push(new Promise((resolve) => socket.once('close', () => resolve())));
    socket.on('error', () => {});
    onConnection(socket, (s, head) => pour(s, head, sent, i));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    sent,
    allClosed: async () => {
      await Promise.all(closed);
    },
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// PostgreSQL's authentication request ('R') with a length of ~2 GB.
export const PG_HUGE = Buffer.from([0x52, 0x7f, 0xff, 0xff, 0xf0]);
// A MySQL packet of the largest length (0xffffff), sequence 0: the greeting, never finished.
export const MYSQL_HUGE = Buffer.from([0xff, 0xff, 0xff, 0x00]);
