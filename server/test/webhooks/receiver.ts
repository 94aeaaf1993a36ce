import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  /** The path and query it was sent to. */
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** What the next requests get: a status, after `delayMs`. */
  answer: { status: number; delayMs: number };
  close(): Promise<void>;
}

/** A webhook receiver on loopback that records every request and answers as told. */
export async function startReceiver(path = '/hook'): Promise<Receiver> {
  const received: Received[] = [];
  const answer = { status: 204, delayMs: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
        at: Date.now(),
      });
      const { status, delayMs } = answer;
      setTimeout(() => res.writeHead(status).end(), delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    answer,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
