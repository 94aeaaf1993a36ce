import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startBridge, type TestBridge } from '../../../test/support/bridge';

const PASSWORD = 'hunter2-Very-Secret-Password';

describe('logs', () => {
  let bridge: TestBridge;
  let user: { key: string; userId: string; email: string };
  let jwtSecret: string;
  const requestIds: string[] = [];

  beforeAll(async () => {
    bridge = await startBridge('sqlite');
    user = await bridge.newUser();
    const responses = [
      await bridge.request('POST', '/api/public/organizations?include=jwtSecret', {
        key: user.key,
        body: { name: 'Logged Org' },
      }),
    ];
    jwtSecret = responses[0]!.body.data.jwtSecret;
    const orgId = responses[0]!.body.data.id;
    responses.push(
      await bridge.request('GET', `/api/public/organizations/${orgId}?include=jwtSecret`, {
        key: user.key,
      }),
      await bridge.request('GET', '/api/public/organizations?include=jwtSecret', {
        key: user.key,
      }),
      await bridge.request('POST', '/api/public/organizations', {
        key: user.key,
        body: { name: 'Has Password', password: PASSWORD },
      }),
      await bridge.request('POST', `/api/public/organizations/${orgId}/members`, {
        key: user.key,
        body: { email: 'x@example.com', role: 'MEMBER', password: PASSWORD, apiKey: user.key },
      }),
      await bridge.request('POST', '/api/public/organizations', {
        key: user.key,
        rawBody: `{"name": "${PASSWORD}", "password": "${PASSWORD}"`,
        headers: { 'content-type': 'application/json' },
      }),
      await bridge.request('GET', `/api/public/organizations?cursor=${user.key}`, {
        key: user.key,
      }),
      await bridge.request('GET', `/api/public/organizations?access_token=${user.key}`),
      await bridge.request('GET', `/api/public/organizations/${user.key}`, { key: user.key }),
      await bridge.request('GET', '/api/public/organizations', {
        key: `${user.key.slice(0, -1)}x`,
      }),
      await bridge.request('GET', '/nope', { key: user.key }),
    );
    requestIds.push(...responses.map((r) => r.headers.get('x-request-id')!));
    // The request line is written when the response finishes; wait until the last one is in.
    await vi.waitFor(() => {
      expect(bridge.logs.join('\n')).toContain(requestIds.at(-1));
    });
  });
  afterAll(() => bridge.stop());

  it('writes one request line per request', () => {
    for (const id of requestIds) {
      const lines = bridge.logs.filter((l) => JSON.parse(l).reqId === id);
      expect(lines.filter((l) => JSON.parse(l).msg === 'request')).toHaveLength(1);
    }
  });

  it('never contains the API key', () => {
    expect(bridge.logs.length).toBeGreaterThan(0);
    for (const line of bridge.logs) expect(line).not.toContain(user.key.slice(7));
  });

  it('never contains the jwtSecret', () => {
    expect(jwtSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    for (const line of bridge.logs) expect(line).not.toContain(jwtSecret);
  });

  it('never contains a password sent in a body', () => {
    for (const line of bridge.logs) expect(line).not.toContain(PASSWORD);
  });

  it('puts a reqId on every request line', () => {
    const requestLines = bridge.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
    expect(requestLines.length).toBeGreaterThanOrEqual(requestIds.length);
    for (const line of requestLines) expect(line.reqId).toEqual(expect.any(String));
  });

  it('uses the X-Request-Id of the response as reqId', () => {
    const logged = new Set(bridge.logs.map((l) => JSON.parse(l).reqId));
    for (const id of requestIds) expect(logged).toContain(id);
  });

  it('records method, status and duration on a request line', () => {
    const line = bridge.logs
      .map((l) => JSON.parse(l))
      .find((l) => l.msg === 'request' && l.reqId === requestIds.at(-1));
    expect(line).toMatchObject({ method: 'GET', url: '/nope', status: 404 });
    expect(line.ms).toEqual(expect.any(Number));
  });

  it('writes every line as JSON', () => {
    for (const line of bridge.logs) expect(() => JSON.parse(line)).not.toThrow();
  });
});
