import { connect, type Socket } from 'node:net';
import type { Connection as MysqlClient, QueryValues } from 'mysql2';
import type { Connection, Driver, DriverTarget } from './driver';
import {
  authFailed,
  codeOf,
  type DatabaseContext,
  databaseDenied,
  databaseNotFound,
  fail,
  ProbeError,
  serverClosed,
  serverRefused,
  sslUnsupported,
  transportFailure,
  unknownFailure,
  type VerifyFailure,
} from './failures';
import { mysql2 } from './modules';
import { MYSQL_AUTH_PLUGINS, MysqlAuthRefused } from './mysql-auth';
import { type Scope, ScopeClosedError } from './scope';

// One object for every TLS connection: mysql2 keeps one secure context per `ssl` object.
// sslmode=require, as for PostgreSQL: encrypted, certificate not verified.
const REQUIRE_TLS = { rejectUnauthorized: false };

// Server error numbers (the protocol's stable codes) for rejected credentials.
const ER_DBACCESS_DENIED = 1044;
const ER_ACCESS_DENIED = 1045;
const ER_BAD_DB = 1049;
const ER_ACCESS_DENIED_NO_PASSWORD = 1698;
const AUTH_ERRNOS = new Set([ER_ACCESS_DENIED, ER_ACCESS_DENIED_NO_PASSWORD]);

const errnoOf = (error: unknown) => {
  const errno = (error as { errno?: unknown } | null)?.errno;
  return typeof errno === 'number' ? errno : undefined;
};

/** Settles with the handshake, or when the scope closes (a destroyed client stays silent). */
function handshake(client: MysqlClient, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new ScopeClosedError());
    signal.addEventListener('abort', onAbort, { once: true });
    client.once('connect', () => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
    client.once('error', (error) => {
      signal.removeEventListener('abort', onAbort);
      reject(error);
    });
  });
}

/**
 * Connects and authenticates with mysql2 (MySQL 8, MariaDB 10.5+). Rejects with mysql2's own
 * errors (server `errno`, mysql2 or Node `code`) or a ProbeError.
 */
async function connectMysql(scope: Scope, target: DriverTarget): Promise<Connection> {
  scope.throwIfClosed();
  let raw: Socket | undefined;
  const client = mysql2().createConnection({
    // mysql2 takes TLS SNI from `host`; the socket itself goes to the checked address.
    host: target.servername ?? target.address,
    port: target.port,
    stream: () => {
      raw = connect({ host: target.address, port: target.port });
      raw.setNoDelay(true);
      // mysql2 reads it from the moment it has it, before a byte can arrive.
      scope.meter(raw, { perChunk: true });
      return raw;
    },
    user: target.user,
    password: target.password ?? '',
    database: target.database,
    ssl: target.ssl ? REQUIRE_TLS : undefined,
    // The password itself goes only to a verified peer, never in clear text (mysql-auth.ts).
    authPlugins: MYSQL_AUTH_PLUGINS as never,
    connectTimeout: 0, // the caller's deadline covers the handshake
    flags: ['-LOCAL_FILES'], // a server may never ask for one of this machine's files
    supportBigNumbers: true,
    bigNumberStrings: true,
    dateStrings: true,
    connectAttributes: { program_name: 'bridgekit-verify' },
  });
  client.on('error', () => {}); // late errors after the handshake surface through queries
  scope.defer(() => {
    client.destroy();
    raw?.destroy();
  });

  try {
    await handshake(client, scope.signal);
  } catch (error) {
    const errno = errnoOf(error);
    if (!target.password && errno !== undefined && AUTH_ERRNOS.has(errno)) {
      throw new ProbeError('no-password');
    }
    throw error;
  }
  return {
    query: (sql, params) =>
      new Promise((resolve, reject) => {
        client.query(sql, [...(params ?? [])] as QueryValues, (error, rows) => {
          if (error) reject(error);
          else resolve(Array.isArray(rows) ? rows.map((row) => ({ ...row })) : []);
        });
      }),
    close: () => new Promise((resolve) => client.end(() => resolve())),
  };
}

function authRefused(error: MysqlAuthRefused): VerifyFailure {
  if (error.why === 'cleartext') {
    return fail(
      'mysql-auth-cleartext',
      'The MySQL server asked for the password in clear text (mysql_clear_password); it was not sent.',
      {
        username:
          'This account authenticates with mysql_clear_password, which the service never uses.',
      },
      { plugin: error.plugin },
    );
  }
  return fail(
    'mysql-auth-needs-verified-tls',
    `The MySQL server asked for the password itself (${error.plugin}); it is sent only over TLS with a verified certificate.`,
    {
      sslEnabled:
        'The server needs the password itself: give it a certificate from a trusted CA for this host name, or use mysql_native_password for this account.',
    },
    { plugin: error.plugin },
  );
}

/**
 * mysql2's failures by server `errno` and by code, onto the shared reasons: MySQL's errors get
 * the SQLSTATE PostgreSQL reports for the same cause (1045/1698 → 28000 as MySQL says itself,
 * 1049 → 3D000, 1044 → 42501, where MySQL only says 42000), so a reason means one thing
 * whatever the dialect.
 */
function mysqlFailure(error: unknown, context: DatabaseContext): VerifyFailure {
  const transport = transportFailure(error, context);
  if (transport) return transport;
  if (error instanceof MysqlAuthRefused) return authRefused(error);
  const code = codeOf(error);
  if (code === 'HANDSHAKE_NO_SSL_SUPPORT') return sslUnsupported();
  if (code === 'HANDSHAKE_SSL_ERROR') {
    return fail('ssl-handshake', 'The SSL handshake with the database failed.', {
      sslEnabled: 'The SSL handshake failed.',
    });
  }
  if (code === 'PROTOCOL_CONNECTION_LOST') {
    return serverClosed('connection-closed', context.product);
  }
  const errno = errnoOf(error);
  if (errno === undefined) return unknownFailure(error, 'host');
  if (AUTH_ERRNOS.has(errno)) return authFailed('28000');
  if (errno === ER_BAD_DB) return databaseNotFound('3D000');
  // MySQL answers an unknown database this way too when the user lacks global privileges.
  if (errno === ER_DBACCESS_DENIED) return databaseDenied('42501');
  const sqlState = (error as { sqlState?: unknown }).sqlState;
  return serverRefused(
    typeof sqlState === 'string' && /^[0-9A-Z]{5}$/.test(sqlState) ? sqlState : `mysql-${errno}`,
  );
}

export const mysqlDriver: Driver = {
  product: 'MySQL',
  defaultDatabase: () => undefined, // MySQL connects without one
  connect: connectMysql,
  failure: mysqlFailure,
};
