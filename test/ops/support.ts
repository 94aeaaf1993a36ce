import net from 'node:net';
import tls from 'node:tls';
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
  /** What clients sent when asked for a password: the password itself, or `md5…` hashes. */
  passwords: string[];
  /** Whether each startup came over TLS, in order. */
  tlsUsed: boolean[];
  /** Connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;

/** A backend message: type byte, length, body. */
const message = (type: string, body: Buffer) => {
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([header, body]);
};

const authRequest = (mode: 'password' | 'md5') => {
  const body = Buffer.alloc(mode === 'md5' ? 8 : 4);
  body.writeInt32BE(mode === 'md5' ? 5 : 3, 0); // AuthenticationMD5Password : CleartextPassword
  if (mode === 'md5') body.write('salt', 4, 'latin1');
  return message('R', body);
};

/**
 * `silent`: accepts and never answers (a connect that hangs until the client's deadline).
 * `password` / `md5`: asks for the password in clear text / as an MD5 hash, keeps what comes,
 * then refuses (28P01). `tls`: answers SSLRequest with TLS under this certificate (else 'N').
 */
export async function startRoguePg(
  mode: 'silent' | 'password' | 'md5',
  options: { tls?: { key: string; cert: string } } = {},
): Promise<RoguePg> {
  const passwords: string[] = [];
  const tlsUsed: boolean[] = [];
  const sockets = new Set<net.Socket>();
  let accepted = 0;

  const serve = (stream: net.Socket, encrypted: boolean) => {
    let buffer = Buffer.alloc(0);
    let started = false;
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (!started && buffer.length >= 8 && buffer.length >= buffer.readInt32BE(0)) {
        const length = buffer.readInt32BE(0);
        if (length === 8 && buffer.readInt32BE(4) === SSL_REQUEST && !encrypted) {
          buffer = buffer.subarray(8);
          if (!options.tls) return void stream.write('N');
          stream.off('data', onData);
          stream.write('S');
          const secure = new tls.TLSSocket(stream, { isServer: true, ...options.tls });
          secure.on('error', () => {});
          serve(secure, true);
          return;
        }
        started = true;
        tlsUsed.push(encrypted);
        buffer = buffer.subarray(length);
        if (mode !== 'silent') stream.write(authRequest(mode));
      }
      if (started && buffer.length >= 5 && buffer[0] === 0x70) {
        const length = buffer.readInt32BE(1);
        if (buffer.length < 1 + length) return;
        passwords.push(
          buffer
            .subarray(5, 1 + length)
            .toString('utf8')
            .replace(/\0$/, ''),
        );
        buffer = buffer.subarray(1 + length);
        const fields = Buffer.from('SFATAL\0C28P01\0Mpassword authentication failed\0\0');
        stream.end(message('E', fields));
      }
    };
    stream.on('data', onData);
  };

  const server = net.createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    if (mode !== 'silent') serve(socket, false);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    passwords,
    tlsUsed,
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
