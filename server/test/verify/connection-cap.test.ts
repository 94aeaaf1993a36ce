import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type TestBridge } from '../../../test/support/bridge';
import { waitFor } from '../../../test/support/wait';

// Verifies against a listener that never answers hold their connection slot until the deadline.
let silent: Server;
let silentPort: number;
const accepted: Socket[] = [];
let bridge: TestBridge;
let key: string;
let orgId: string;

beforeAll(async () => {
  silent = createServer((socket) => {
    accepted.push(socket);
    socket.on('error', () => {});
    socket.resume();
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentPort = (silent.address() as { port: number }).port;
  bridge = await startBridge('sqlite', {
    BRIDGE_MAX_CONNECTIONS_IN_FLIGHT: '4',
    BRIDGE_VERIFY_TIMEOUT_MS: '2000',
  });
  key = (await bridge.newUser()).key;
  const org = await bridge.request('POST', '/api/public/organizations', {
    key,
    body: { name: 'Cap Org' },
  });
  orgId = org.body.data.id;
});

afterAll(async () => {
  await bridge?.stop();
  for (const socket of accepted) socket.destroy();
  await new Promise((resolve) => silent?.close(resolve));
});

const verify = () =>
  bridge.request('POST', `/api/public/organizations/${orgId}/data-sources/verify`, {
    key,
    body: {
      dialect: 'POSTGRES',
      host: '127.0.0.1',
      port: silentPort,
      username: 'u',
      password: 'cap-secret',
    },
  });

const until = (condition: () => boolean) =>
  waitFor(async () => condition(), { timeoutMs: 5000, intervalMs: 10 });

describe('the process-wide cap on connection attempts', () => {
  it('answers a verify beyond the cap with 429 and Retry-After at once, then admits again', async () => {
    const slots = bridge.deps.connectionSlots;
    expect(slots.limit).toBe(4);
    const held = [verify(), verify(), verify(), verify()];
    await until(() => slots.inUse === 4);

    const started = performance.now();
    const refused = await verify();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body).toEqual({
      error: {
        title: 'TooManyRequests',
        detail: 'Too many connection attempts in progress; retry in 1 s',
        code: 'connections_busy',
        params: { retryAfter: 1 },
      },
    });

    // The four held verifies end at their deadline, as timeouts, and give their slots back.
    for (const res of await Promise.all(held)) {
      expect(res.status).toBe(422);
      expect(res.body.error.fieldErrors).toHaveProperty('host');
    }
    expect(slots.inUse).toBe(0);
    const next = verify();
    await until(() => slots.inUse === 1);
    expect((await next).status).toBe(422);
  });

  it('lets a verify through while background work holds every shared slot', async () => {
    const slots = bridge.deps.connectionSlots;
    expect(slots.reserved).toBe(1);
    const background = await Promise.all([slots.acquire(), slots.acquire(), slots.acquire()]);
    // A fourth background job waits; the reserved slot stays free for a verify.
    let waited = false;
    const fourth = slots.acquire().then((release) => {
      waited = true;
      return release;
    });
    const pending = verify();
    await until(() => slots.inUse === 4);
    expect(waited).toBe(false);
    const refused = await verify();
    expect(refused.status).toBe(429);
    for (const release of background) release();
    (await fourth)();
    expect((await pending).status).toBe(422);
  });
});
