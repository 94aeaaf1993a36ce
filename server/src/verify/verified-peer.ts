import { TLSSocket } from 'node:tls';

/**
 * Whether a database connection's stream is TLS with a verified certificate: a chain to a CA
 * this Node trusts (the system's, plus NODE_EXTRA_CA_CERTS) and the host name. Node sets
 * `authorized` even when the handshake goes on without it (sslEnabled's "require",
 * `rejectUnauthorized: false`), so the drivers connect either way and only the password waits.
 */
export function verifiedPeer(stream: unknown): boolean {
  return stream instanceof TLSSocket && stream.encrypted && stream.authorized;
}
