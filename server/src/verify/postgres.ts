import { Socket } from 'node:net';
import type { Connection, Driver, DriverTarget } from './driver';
import {
  authFailed,
  codeOf,
  type DatabaseContext,
  databaseNotFound,
  fail,
  ProbeError,
  serverClosed,
  serverRefused,
  transportFailure,
  unknownFailure,
  type VerifyFailure,
} from './failures';
import { pg } from './modules';
import { guardPasswordAuth, PostgresAuthRefused } from './postgres-auth';
import type { Scope } from './scope';

const N = 0x4e; // the server's one-byte answer to SSLRequest: 'S' yes, 'N' no

/**
 * Connects and authenticates with node-postgres. Rejects with pg's own errors (SQLSTATE `code`,
 * Node socket `code`) or a ProbeError.
 */
async function connectPostgres(scope: Scope, target: DriverTarget): Promise<Connection> {
  let raw: Socket | undefined;
  let sslAnswer: number | undefined;
  const client = new (pg().Client)({
    host: target.address,
    port: target.port,
    user: target.user,
    database: target.database ?? target.user,
    // A function is only called when the server asks, and keeps pg from reading ~/.pgpass.
    password: async () => {
      if (!target.password) throw new ProbeError('no-password');
      return target.password;
    },
    // sslmode=require: encrypted, certificate not verified.
    ssl: target.ssl
      ? {
          rejectUnauthorized: false,
          ...(target.servername ? { servername: target.servername } : {}),
        }
      : false,
    // pg only reports "does not support SSL" as message text; the stable signal is the
    // server's answer byte to SSLRequest, which this listener sees before pg's own.
    stream: () => {
      raw = new Socket();
      if (target.ssl) raw.once('data', (chunk: Buffer) => (sslAnswer = chunk[0]));
      // pg reads it from its connect on, before a byte can arrive.
      scope.meter(raw, { perChunk: true });
      return raw;
    },
    application_name: 'bridgekit-verify',
  });
  // The password in clear text or as MD5 only to a verified peer (postgres-auth.ts).
  guardPasswordAuth(client);
  client.on('error', () => {}); // late socket errors after a failed connect
  scope.defer(() => {
    client.connection.stream.destroy();
    raw?.destroy();
  });

  try {
    scope.throwIfClosed(); // a destroyed net.Socket would reopen on connect()
    await client.connect();
  } catch (error) {
    if (target.ssl && sslAnswer === N) throw new ProbeError('ssl-unsupported');
    throw error;
  }
  return {
    query: async (sql, params) => (await client.query(sql, params as unknown[] | undefined)).rows,
    close: () => client.end(),
  };
}

const SQLSTATE = /^[0-9A-Z]{5}$/;

function authRefused(error: PostgresAuthRefused): VerifyFailure {
  const how = error.method === 'md5' ? 'as an MD5 hash' : 'in clear text';
  return fail(
    'postgres-auth-needs-verified-tls',
    `The PostgreSQL server asked for the password ${how} (${error.method}); it is sent only over TLS with a verified certificate.`,
    {
      sslEnabled:
        'The server asks for the password itself: give it a certificate from a trusted CA for this host name, or use scram-sha-256 for this account.',
    },
    { method: error.method },
  );
}

/** pg's failures by SQLSTATE and Node code; the shared reasons are PostgreSQL's own codes. */
function postgresFailure(error: unknown, context: DatabaseContext): VerifyFailure {
  const transport = transportFailure(error, context);
  if (transport) return transport;
  if (error instanceof PostgresAuthRefused) return authRefused(error);
  const code = codeOf(error);
  // pg's "Connection terminated unexpectedly": the peer closed without a protocol error.
  if (code === undefined) return serverClosed('connection-closed', context.product);
  if (code === '28P01' || code === '28000') return authFailed(code);
  if (code === '3D000') return databaseNotFound(code);
  if (SQLSTATE.test(code)) return serverRefused(code);
  return unknownFailure(error, 'host');
}

export const postgresDriver: Driver = {
  product: 'PostgreSQL',
  defaultDatabase: (user) => user,
  connect: connectPostgres,
  failure: postgresFailure,
};
