import { createHash } from 'node:crypto';
import type { Connection as MysqlClient } from 'mysql2';
import { verifiedPeer } from './verified-peer';

/**
 * A server asked for the password itself where the bridge won't send it: `needs-verified-tls`
 * (sha256_password, caching_sha2_password's full authentication, without TLS whose certificate
 * was verified) or `cleartext` (mysql_clear_password, never).
 */
export class MysqlAuthRefused extends Error {
  constructor(
    readonly why: 'needs-verified-tls' | 'cleartext',
    readonly plugin: string,
  ) {
    super(`The server asked for the password through ${plugin}; not sent`);
    this.name = 'MysqlAuthRefused';
  }
}

const passwordOf = (client: MysqlClient) =>
  String((client as unknown as { config: { password?: unknown } }).config.password ?? '');

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest();

/** caching_sha2_password's scramble: proves the password without revealing it. */
function scrambleToken(password: string, scramble: Buffer): Buffer {
  if (!password) return Buffer.alloc(0);
  const stage1 = sha256(Buffer.from(password, 'utf8'));
  const stage3 = sha256(Buffer.concat([sha256(stage1), scramble]));
  return Buffer.from(stage1.map((b, i) => b ^ (stage3[i] as number)));
}

const FAST_AUTH_OK = 3;
const FULL_AUTH = 4;

type AuthPlugin = (meta: { connection: MysqlClient }) => (data: Buffer) => Promise<Buffer | null>;

/** The password itself, only to a verified peer. */
function clearToVerified(client: MysqlClient, plugin: string): Buffer {
  const stream = (client as unknown as { stream?: unknown }).stream;
  if (!verifiedPeer(stream)) throw new MysqlAuthRefused('needs-verified-tls', plugin);
  return Buffer.from(`${passwordOf(client)}\0`, 'utf8');
}

/**
 * mysql2's `authPlugins`, replacing its own for the plugins that can hand over the password.
 * mysql2 sends the password in the handshake response when the greeting names one of these and
 * TLS is on (verified or not), and to the server's own RSA key without TLS; with these in
 * place its first answer is always mysql_native_password's challenge-response, and whatever the
 * server then asks goes through the rules here. A refusal rejects, which ends the handshake.
 */
export const MYSQL_AUTH_PLUGINS: Record<string, AuthPlugin> = {
  sha256_password:
    ({ connection }) =>
    async () =>
      clearToVerified(connection, 'sha256_password'),

  caching_sha2_password: ({ connection }) => {
    let scrambled = false;
    return async (data) => {
      if (!scrambled) {
        scrambled = true;
        return scrambleToken(passwordOf(connection), data.subarray(0, 20));
      }
      if (data.length === 1 && data[0] === FAST_AUTH_OK) return null;
      if (data.length === 1 && data[0] === FULL_AUTH) {
        return clearToVerified(connection, 'caching_sha2_password');
      }
      throw new MysqlAuthRefused('needs-verified-tls', 'caching_sha2_password');
    };
  },

  mysql_clear_password: () => async () => {
    throw new MysqlAuthRefused('cleartext', 'mysql_clear_password');
  },
};
