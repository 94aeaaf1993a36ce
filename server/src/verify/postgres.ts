import { Socket } from 'node:net';
import { pg } from './modules';
import type { Scope } from './scope';

export interface PostgresProbe {
  /** The address to connect to (already checked), or the local end of an SSH tunnel. */
  address: string;
  port: number;
  /** TLS SNI: the hostname the user gave, unset for IP literals. */
  servername: string | undefined;
  ssl: boolean;
  user: string;
  password: string | undefined;
  database: string;
}

/** Failures pg reports without a stable code; named here from protocol-level facts. */
export class PostgresProbeError extends Error {
  constructor(readonly code: 'ssl-unsupported' | 'no-password') {
    super(code === 'ssl-unsupported' ? 'The server does not accept SSL' : 'No password given');
    this.name = 'PostgresProbeError';
  }
}

const N = 0x4e; // the server's one-byte answer to SSLRequest: 'S' yes, 'N' no

/**
 * Connects with node-postgres, runs `SELECT 1` (then calls `onQueried`) and ends the
 * session. Rejects with pg's own errors (SQLSTATE `code`, Node socket `code`) or a
 * PostgresProbeError.
 */
export async function probePostgres(
  scope: Scope,
  probe: PostgresProbe,
  onQueried: () => void,
): Promise<void> {
  let raw: Socket | undefined;
  let sslAnswer: number | undefined;
  const client = new (pg().Client)({
    host: probe.address,
    port: probe.port,
    user: probe.user,
    database: probe.database,
    // A function is only called when the server asks, and keeps pg from reading ~/.pgpass.
    password: async () => {
      if (!probe.password) throw new PostgresProbeError('no-password');
      return probe.password;
    },
    // sslmode=require: encrypted, certificate not verified.
    ssl: probe.ssl
      ? { rejectUnauthorized: false, ...(probe.servername ? { servername: probe.servername } : {}) }
      : false,
    // pg only reports "does not support SSL" as message text; the stable signal is the
    // server's answer byte to SSLRequest, which this listener sees before pg's own.
    stream: () => {
      raw = new Socket();
      if (probe.ssl) raw.once('data', (chunk: Buffer) => (sslAnswer = chunk[0]));
      return raw;
    },
    application_name: 'bridgekit-verify',
  });
  client.on('error', () => {}); // late socket errors after a failed connect
  scope.defer(() => {
    client.connection.stream.destroy();
    raw?.destroy();
  });

  try {
    scope.throwIfClosed(); // a destroyed net.Socket would reopen on connect()
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    if (probe.ssl && sslAnswer === N) throw new PostgresProbeError('ssl-unsupported');
    throw error;
  }
  onQueried();
  await client.end();
}
