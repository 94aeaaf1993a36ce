// A rogue MySQL server on loopback, written against the protocol (not a real server): it asks
// for the password through the authentication plugin chosen by the test and keeps whatever the
// client sends, decrypting what was encrypted to its own RSA key, then refuses the login.
import { generateKeyPairSync, privateDecrypt, randomBytes, constants as rsa } from 'node:crypto';
import net from 'node:net';
import { Duplex } from 'node:stream';
import tls from 'node:tls';

export type MysqlAuthPlugin =
  | 'mysql_native_password'
  | 'caching_sha2_password'
  | 'sha256_password'
  | 'mysql_clear_password';

export interface RogueMysqlOptions {
  /** The plugin the greeting names (the "initial plugin"). */
  plugin: MysqlAuthPlugin;
  /** Switches to this plugin after the client's handshake response (an auth switch). */
  switchTo?: MysqlAuthPlugin;
  /** Offers TLS with this key and certificate (PEM); no TLS without it. */
  tls?: { key: string; cert: string };
}

export interface RogueMysql {
  port: number;
  /** Every packet the client sent after the greeting (TLS already removed), in order. */
  packets: Buffer[];
  /** The auth data of each handshake response (empty when the client has no password). */
  authResponses: Buffer[];
  /** Passwords learned: sent in clear text, or encrypted to the server's RSA key. */
  learned: string[];
  /** Whether the client upgraded to TLS, per connection. */
  tlsUsed: boolean[];
  connections(): number;
  close(): Promise<void>;
}

const CLIENT = {
  LONG_PASSWORD: 0x1,
  CONNECT_WITH_DB: 0x8,
  PROTOCOL_41: 0x200,
  SSL: 0x800,
  TRANSACTIONS: 0x2000,
  SECURE_CONNECTION: 0x8000,
  PLUGIN_AUTH: 0x80000,
  CONNECT_ATTRS: 0x100000,
  PLUGIN_AUTH_LENENC: 0x200000,
};

/** Reads MySQL packets (3-byte length, sequence id) from whatever stream is current. */
class Packets {
  private buffer = Buffer.alloc(0);
  private waiting: ((p: Buffer | undefined) => void) | undefined;
  private ended = false;
  seq = 0;
  constructor(private stream: Duplex) {
    this.listen(stream);
  }
  /** Reads from `stream` from now on. */
  listen(stream: Duplex) {
    this.stream = stream;
    stream.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.flush();
    });
    stream.once('close', () => {
      this.ended = true;
      this.flush();
    });
    stream.on('error', () => {});
  }
  /**
   * Stops reading the current stream; a duplex over it that starts with the bytes already
   * read past the last packet (a client's TLS hello arrives right behind its SSL request).
   */
  detach(): Duplex {
    const socket = this.stream;
    socket.removeAllListeners('data');
    const rest = this.buffer;
    this.buffer = Buffer.alloc(0);
    const duplex = new Duplex({
      read() {},
      write(chunk, _encoding, done) {
        socket.write(chunk, done);
      },
    });
    if (rest.length > 0) duplex.push(rest);
    socket.on('data', (chunk: Buffer) => duplex.push(chunk));
    socket.on('end', () => duplex.push(null));
    socket.on('close', () => duplex.destroy());
    return duplex;
  }
  private take(): Buffer | undefined {
    if (this.buffer.length < 4) return undefined;
    const length = this.buffer.readUIntLE(0, 3);
    if (this.buffer.length < 4 + length) return undefined;
    this.seq = (this.buffer[3] as number) + 1;
    const payload = this.buffer.subarray(4, 4 + length);
    this.buffer = this.buffer.subarray(4 + length);
    return payload;
  }
  private flush() {
    if (!this.waiting) return;
    const packet = this.take();
    if (packet || this.ended) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve(packet);
    }
  }
  next(): Promise<Buffer | undefined> {
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.flush();
    });
  }
  write(payload: Buffer) {
    const header = Buffer.alloc(4);
    header.writeUIntLE(payload.length, 0, 3);
    header[3] = this.seq++ & 0xff;
    this.stream.write(Buffer.concat([header, payload]));
  }
}

const cstr = (s: string) => Buffer.from(`${s}\0`, 'latin1');

function greeting(plugin: MysqlAuthPlugin, scramble: Buffer, withTls: boolean): Buffer {
  let caps =
    CLIENT.LONG_PASSWORD |
    CLIENT.CONNECT_WITH_DB |
    CLIENT.PROTOCOL_41 |
    CLIENT.TRANSACTIONS |
    CLIENT.SECURE_CONNECTION |
    CLIENT.PLUGIN_AUTH |
    CLIENT.CONNECT_ATTRS |
    CLIENT.PLUGIN_AUTH_LENENC;
  if (withTls) caps |= CLIENT.SSL;
  const fixed = Buffer.alloc(4 + 8 + 1 + 2 + 1 + 2 + 2 + 1 + 10);
  let p = 0;
  fixed.writeUInt32LE(7, p); // connection id
  p += 4;
  scramble.copy(fixed, p, 0, 8);
  p += 8 + 1; // filler
  fixed.writeUInt16LE(caps & 0xffff, p);
  p += 2;
  fixed[p++] = 0xff; // utf8mb4_0900_ai_ci
  fixed.writeUInt16LE(2, p); // SERVER_STATUS_AUTOCOMMIT
  p += 2;
  fixed.writeUInt16LE(caps >>> 16, p);
  p += 2;
  fixed[p] = 21; // auth plugin data length
  return Buffer.concat([
    Buffer.from([10]),
    cstr('8.0.36-rogue'),
    fixed,
    scramble.subarray(8),
    Buffer.alloc(1),
    cstr(plugin),
  ]);
}

/** The auth response of a HandshakeResponse41, and the plugin the client named. */
function parseHandshakeResponse(packet: Buffer) {
  const caps = packet.readUInt32LE(0);
  let p = 32;
  p = packet.indexOf(0, p) + 1; // user
  let auth: Buffer;
  if (caps & CLIENT.PLUGIN_AUTH_LENENC) {
    const len = packet[p] as number; // < 251 for every plugin here
    auth = packet.subarray(p + 1, p + 1 + len);
    p += 1 + len;
  } else {
    const len = packet[p] as number;
    auth = packet.subarray(p + 1, p + 1 + len);
    p += 1 + len;
  }
  if (caps & CLIENT.CONNECT_WITH_DB) p = packet.indexOf(0, p) + 1;
  const end = packet.indexOf(0, p);
  const plugin = caps & CLIENT.PLUGIN_AUTH ? packet.subarray(p, end).toString('latin1') : '';
  return { auth, plugin };
}

const xorRotating = (data: Buffer, scramble: Buffer) =>
  Buffer.from(data.map((b, i) => b ^ (scramble[i % scramble.length] as number)));

const ACCESS_DENIED = Buffer.concat([
  Buffer.from([0xff, 0x15, 0x04]), // ERR, 1045
  Buffer.from('#28000Access denied for user'),
]);

export async function startRogueMysql(options: RogueMysqlOptions): Promise<RogueMysql> {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const packets: Buffer[] = [];
  const learned: string[] = [];
  const authResponses: Buffer[] = [];
  const tlsUsed: boolean[] = [];
  const sockets = new Set<net.Socket>();
  let accepted = 0;

  /** What an auth packet gives away: a clear-text password, or one encrypted to our key. */
  const learn = (data: Buffer, scramble: Buffer) => {
    if (data.length > 1 && data[data.length - 1] === 0) {
      learned.push(data.subarray(0, -1).toString('utf8'));
      return;
    }
    if (data.length !== 256) return; // an RSA-2048 block
    try {
      const padding = rsa.RSA_PKCS1_OAEP_PADDING;
      const plain = privateDecrypt({ key: privateKey, oaepHash: 'sha1', padding }, data);
      learned.push(xorRotating(plain, scramble).subarray(0, -1).toString('utf8'));
    } catch {} // not encrypted to our key
  };

  async function serve(socket: net.Socket) {
    const scramble = Buffer.from(randomBytes(20).map((b) => (b % 94) + 33)); // printable, no NUL
    const io = new Packets(socket);
    io.write(greeting(options.plugin, scramble, Boolean(options.tls)));
    let packet = await io.next();
    if (!packet) return;
    const index = tlsUsed.push(false) - 1;
    if (packet.length === 32 && options.tls) {
      const secure = new tls.TLSSocket(io.detach(), { isServer: true, ...options.tls });
      io.listen(secure);
      tlsUsed[index] = true;
      packet = await io.next();
      if (!packet) return;
    }
    packets.push(packet);
    const response = parseHandshakeResponse(packet);
    authResponses.push(Buffer.from(response.auth));
    learn(response.auth, scramble);
    let plugin = response.plugin as MysqlAuthPlugin;
    const wanted = options.switchTo ?? options.plugin;
    let data: Buffer | undefined = response.auth;
    if (options.switchTo || plugin !== wanted) {
      plugin = wanted;
      io.write(Buffer.concat([Buffer.from([0xfe]), cstr(plugin), scramble, Buffer.alloc(1)]));
      data = await io.next();
      if (!data) return;
      packets.push(data);
      learn(data, scramble);
    }
    if (plugin === 'caching_sha2_password') {
      io.write(Buffer.from([0x01, 0x04])); // perform full authentication
      data = await io.next();
      if (!data) return;
      packets.push(data);
      learn(data, scramble);
    }
    if (
      (plugin === 'caching_sha2_password' && data.length === 1 && data[0] === 0x02) ||
      (plugin === 'sha256_password' && data.length === 1 && data[0] === 0x01)
    ) {
      io.write(Buffer.concat([Buffer.from([0x01]), Buffer.from(pem)])); // our public key
      data = await io.next();
      if (!data) return;
      packets.push(data);
      learn(data, scramble);
    }
    io.write(ACCESS_DENIED);
  }

  const server = net.createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    void serve(socket).catch(() => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    packets,
    authResponses,
    learned,
    tlsUsed,
    connections: () => accepted,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
