import { createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../test/support/free-port';
import { type PgCluster, startPgCluster } from '../../../test/support/pg-cluster';
import { verifyConnection } from '../../src/verify/verify';

let db: PgCluster;
let silent: Server;
let silentPort: number;
const accepted: Socket[] = [];

beforeAll(async () => {
  db = await startPgCluster({ ssl: true, auth: 'scram-sha-256' });
  // Accepts and never answers; reads to EOF so its side closes when the client's does.
  silent = createServer((socket) => {
    accepted.push(socket);
    socket.resume();
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentPort = (silent.address() as { port: number }).port;
});

afterAll(async () => {
  await db?.stop();
  for (const socket of accepted) socket.destroy();
  await new Promise((resolve) => silent?.close(resolve));
});

const WATCHED = ['TCPSocketWrap', 'TCPServerWrap', 'Timeout'] as const;

function countResources(): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(WATCHED.map((name) => [name, 0]));
  for (const name of process.getActiveResourcesInfo()) {
    if (name in counts) counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

describe('verifyConnection resources', () => {
  it('leaves no socket, server or timer behind after 200 failed verifies and 20 timeouts', async () => {
    const refusedPort = await freePort();
    const base = {
      dialect: 'POSTGRES',
      host: db.host,
      username: db.user,
      databaseName: db.database,
    } as const;
    const options = { timeoutMs: 5000, allowPrivateNetworks: true };
    // Warm up pg and TLS so lazily created handles are not counted as leaks.
    await verifyConnection({ ...base, port: db.port, password: db.password }, options);
    await sleep(50);
    const before = countResources();

    const reasons = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const outcome =
        i % 2 === 0
          ? await verifyConnection({ ...base, port: refusedPort, password: 'x' }, options)
          : await verifyConnection({ ...base, port: db.port, password: 'wrong-password' }, options);
      if (!outcome.ok) reasons.add(outcome.reason);
    }
    // Timeouts are the path where only our teardown closes the socket.
    for (let i = 0; i < 20; i++) {
      const outcome = await verifyConnection(
        { ...base, port: silentPort, password: 'x' },
        { ...options, timeoutMs: 30 },
      );
      if (!outcome.ok) reasons.add(outcome.reason);
    }
    expect([...reasons].sort()).toEqual(['28P01', 'ECONNREFUSED', 'timeout']);

    await sleep(100);
    const after = countResources();
    for (const name of WATCHED) expect(after[name], name).toBeLessThanOrEqual(before[name] ?? 0);
  });
});
