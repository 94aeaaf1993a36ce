import { TLSSocket } from 'node:tls';
import type { Client } from 'pg';

/** The password requests that hand the server the password, or its MD5 equivalent. */
export type PasswordMethod = 'password' | 'md5';

/**
 * A server asked for the password in clear text (`password`) or as an MD5 hash (`md5`, as good
 * as the password to PostgreSQL) over a connection whose peer is not verified; nothing sent.
 */
export class PostgresAuthRefused extends Error {
  constructor(readonly method: PasswordMethod) {
    super(`The server asked for the password through ${method}; not sent`);
    this.name = 'PostgresAuthRefused';
  }
}

/**
 * Whether the stream is TLS and its certificate verified: a chain to a trusted CA and the host
 * name. Node sets `authorized` even when the handshake goes on without it (sslEnabled's
 * "require", `rejectUnauthorized: false`).
 */
export function verifiedPeer(stream: unknown): boolean {
  return stream instanceof TLSSocket && stream.encrypted && stream.authorized;
}

interface ClientInternals {
  connection: { stream: unknown; emit(event: 'error', error: Error): boolean };
  _handleAuthCleartextPassword(message: unknown): void;
  _handleAuthMD5Password(message: unknown): void;
}

const HANDLERS = [
  ['_handleAuthCleartextPassword', 'password'],
  ['_handleAuthMD5Password', 'md5'],
] as const;

/**
 * Makes `client` answer the cleartext and MD5 password requests only to a verified peer. pg
 * binds these handlers to the connection's events on connect, so they are replaced before it;
 * a refusal is a connection error, which pg turns into the rejection of `connect()` before the
 * password (or the function giving it) is ever read. SCRAM-SHA-256 reveals nothing a server can
 * log in with, and stays as pg does it.
 */
export function guardPasswordAuth(client: Client): void {
  const internals = client as unknown as ClientInternals;
  for (const [handler, method] of HANDLERS) {
    const own = internals[handler].bind(client);
    internals[handler] = (message) => {
      if (verifiedPeer(internals.connection.stream)) return own(message);
      internals.connection.emit('error', new PostgresAuthRefused(method));
    };
  }
}
