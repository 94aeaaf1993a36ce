import type { Client } from 'pg';
import { verifiedPeer } from './verified-peer';

/** The password requests that hand the server the password, or a hash it can use as one. */
export type PasswordMethod = 'password' | 'md5';

/**
 * A server asked for the password in clear text (`password`) or as an MD5 hash (`md5`, which it
 * can relay to the real server or crack cheaply) over a connection whose peer is not verified;
 * nothing was sent.
 */
export class PostgresAuthRefused extends Error {
  constructor(readonly method: PasswordMethod) {
    super(`The server asked for the password through ${method}; not sent`);
    this.name = 'PostgresAuthRefused';
  }
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
