import net from 'node:net';
import type { TestResponse } from '../support/bridge';
import { type BridgeData, createApiKey } from '../support/bridge-data';

/** A line of the bridge's JSON log. */
export type LogLine = Record<string, unknown> & { msg?: string; level?: number };

/** Every JSON line of `text` (other lines, such as the demo banner, are skipped). */
export function jsonLines(text: string): LogLine[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

/** A rogue PostgreSQL server on loopback, for data sources the bridge connects to. */
export interface RoguePg {
  port: number;
  /** Passwords clients sent when asked for one in clear text. */
  passwords: string[];
  /** Connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

/**
 * `silent`: accepts and never answers (a connect that hangs until the client's deadline).
 * `password`: asks for the password in clear text, keeps it, then refuses (28P01).
 */
export async function startRoguePg(mode: 'silent' | 'password'): Promise<RoguePg> {
  const passwords: string[] = [];
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  const server = net.createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    if (mode === 'silent') return;
    let buffer = Buffer.alloc(0);
    let started = false;
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (!started && buffer.length >= 4 && buffer.length >= buffer.readInt32BE(0)) {
        started = true;
        buffer = buffer.subarray(buffer.readInt32BE(0));
        // AuthenticationCleartextPassword
        socket.write(Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 3]));
      }
      if (started && buffer.length >= 5 && buffer[0] === 0x70) {
        const length = buffer.readInt32BE(1);
        if (buffer.length < 1 + length) return;
        passwords.push(buffer.subarray(5, length).toString('utf8'));
        const fields = Buffer.from('SFATAL\0C28P01\0Mpassword authentication failed\0\0');
        const header = Buffer.alloc(5);
        header[0] = 0x45;
        header.writeInt32BE(4 + fields.length, 1);
        socket.end(Buffer.concat([header, fields]));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    passwords,
    connections: () => accepted,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Sends a JSON request with the key; the status, headers and parsed body. */
export async function call(
  base: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<TestResponse> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    body: text ? JSON.parse(text) : undefined,
    text,
  };
}

/** A user with an API key, written into the store, and an organization it is ADMIN of. */
export async function adminWithOrg(data: BridgeData, base: string) {
  const { key } = await createApiKey(data);
  const org = await call(base, key, 'POST', '/api/public/organizations?include=jwtSecret', {
    name: `Ops ${Date.now()}`,
  });
  if (org.status !== 201) throw new Error(`create organization: ${JSON.stringify(org.body)}`);
  return { key, orgId: org.body.data.id as string, jwtSecret: org.body.data.jwtSecret as string };
}

/** A PostgreSQL data source's create body, at a loopback port, without TLS. */
export const dataSourceAt = (port: number, password = 'ops-secret-pw') => ({
  dialect: 'POSTGRES',
  displayName: 'Warehouse',
  host: '127.0.0.1',
  port,
  username: 'analyst',
  password,
  sslEnabled: false,
});

/** The same connection as a verify body (no display name). */
export function verifyBody(port: number, password = 'ops-secret-pw') {
  const { displayName: _, ...body } = dataSourceAt(port, password);
  return body;
}
