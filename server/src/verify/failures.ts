import { NetworkPolicyError } from './network-policy';

/**
 * A failure a driver recognises from protocol-level facts rather than an error code: the server
 * refused TLS although it is required, or wanted a password and none was given.
 */
export class ProbeError extends Error {
  constructor(readonly code: 'ssl-unsupported' | 'no-password') {
    super(code === 'ssl-unsupported' ? 'The server does not accept SSL' : 'No password given');
    this.name = 'ProbeError';
  }
}

/**
 * Why a connection failed, as a 422's detail and the form fields to blame: an unresolvable host
 * (host), a refused connection (port), rejected credentials (username, password), a missing
 * database (databaseName), no TLS where it is required (sslEnabled), a timeout (host, naming
 * the service's outbound address for the firewall), SSH failures (the ssh* field at fault, in
 * ssh-failures.ts), a target the SSH host can't reach (host), an address the network policy
 * refuses (host or sshHost). No message here is built from user input, so no secret can reach
 * one.
 *
 * `reason` is stable and means the same for every dialect: a fixed name (`timeout`, `policy`,
 * `no-password`, `ssl-unsupported`, `connection-closed`, `ssh-…`), a Node error code for network
 * and TLS failures (`ECONNREFUSED`, `ENOTFOUND`, `ERR_SSL_…`), or a SQLSTATE for a database
 * server's verdict (`28P01`/`28000` rejected credentials, `3D000` no such database, `42501` no
 * access to it, any other: refused). A driver maps its protocol's own stable codes onto these.
 */
export type VerifyFailure = {
  ok: false;
  detail: string;
  fieldErrors: Record<string, string>;
  reason: string;
  /** Values the detail names (port, service address), for translated messages. */
  params?: Record<string, string | number>;
};

export type Field =
  | 'host'
  | 'port'
  | 'username'
  | 'password'
  | 'databaseName'
  | 'sslEnabled'
  | 'sshHost'
  | 'sshPort'
  | 'sshUsername'
  | 'sshPassword'
  | 'sshPrivateKey'
  | 'sshPrivateKeyPassphrase';

export function fail(
  reason: string,
  detail: string,
  fields: Partial<Record<Field, string>>,
  params?: Record<string, string | number>,
): VerifyFailure {
  const failure: VerifyFailure = { ok: false, detail, fieldErrors: fields, reason };
  if (params) failure.params = params;
  return failure;
}

export const LOOKUP_CODES = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NODATA',
  'EAI_NONAME',
]);
export const UNREACHABLE_CODES = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN']);

export function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function unknownFailure(error: unknown, field: 'host' | 'sshHost'): VerifyFailure {
  const name = error instanceof Error ? error.name : typeof error;
  return fail(`unknown:${name}`, 'The connection failed for an unexpected reason.', {
    [field]: 'The connection failed.',
  });
}

// The network policy refused the address a host resolved to.
export const notAllowed = (what: string, field: 'host' | 'sshHost') =>
  fail('policy', `${what} is not allowed.`, { [field]: 'This address is not allowed.' });

/** Where a connection attempt was when its deadline passed. */
export type Phase = 'ssh-key' | 'ssh' | 'database';

export function timeoutFailure(
  phase: Phase,
  viaSsh: boolean,
  serviceIp: string | undefined,
): VerifyFailure {
  if (phase === 'ssh-key') {
    // The key's own KDF round count decides this; it is untrusted input.
    return fail('timeout', 'Decrypting the SSH private key took too long.', {
      sshPrivateKey: 'The key takes too long to decrypt.',
    });
  }
  const allow = serviceIp ? ` Allow ${serviceIp} in the firewall.` : '';
  const named = serviceIp ? { serviceIp } : undefined;
  if (phase === 'ssh') {
    return fail(
      'timeout',
      `The SSH host did not answer in time.${allow}`,
      { sshHost: `The connection timed out.${allow}` },
      named,
    );
  }
  if (viaSsh) {
    // Through a tunnel the database sees the SSH host, not this service: no IP to name.
    return fail('timeout', 'The database did not answer in time through the SSH tunnel.', {
      host: 'The connection timed out.',
    });
  }
  const hint = serviceIp
    ? ` If the database has a firewall, allow ${serviceIp} in the database firewall.`
    : ' Check the host, and that the database firewall allows this service.';
  return fail(
    'timeout',
    `The connection to the database timed out.${hint}`,
    { host: `The connection timed out.${hint}` },
    named,
  );
}

/** `bytes` as the messages name it: whole MB above one, kB below. */
const sizeText = (bytes: number) =>
  bytes >= 1 << 20 ? `${Math.round(bytes / (1 << 20))} MB` : `${Math.ceil(bytes / 1024)} kB`;

/**
 * The database server sent more than one connection may read (Scope's `maxReadBytes`): a
 * hostile or wrong server (a message declaring gigabytes), or a catalog bigger than a sync
 * reads. Only the database's own connection is metered, directly or through the tunnel: ssh2
 * refuses an SSH packet over its protocol's bound by itself.
 */
export function overReadFailure(product: string, maxReadBytes: number) {
  const limit = sizeText(maxReadBytes);
  return fail(
    'too-much-data',
    `The server sent more than ${limit} on one connection. Check that the host and port point at a ${product} server.`,
    { host: `The server sent more than ${limit}.` },
    { limit },
  );
}

/** What a database failure's message depends on. */
export interface DatabaseContext {
  port: number;
  viaSsh: boolean;
  serviceIp: string | undefined;
  /** The server the user meant to reach, named in "Check that this is a … server". */
  product: string;
}

// The causes a driver recognises in its own protocol; `reason` is the shared name of each.
export const authFailed = (reason: string) =>
  fail(reason, 'The database rejected the username or password.', {
    username: 'Authentication failed.',
    password: 'Authentication failed.',
  });
export const passwordRequired = () =>
  fail('no-password', 'The database server requires a password.', {
    username: 'Authentication failed.',
    password: 'A password is required.',
  });
export const databaseNotFound = (reason: string) =>
  fail(reason, 'The database does not exist.', { databaseName: 'The database was not found.' });
export const sslUnsupported = () =>
  fail('ssl-unsupported', 'The database server does not accept SSL connections.', {
    sslEnabled: 'The server does not accept SSL connections.',
  });
export const serverClosed = (reason: string, product: string) =>
  fail(reason, 'The server closed the connection unexpectedly.', {
    host: `The server closed the connection. Check that this is a ${product} server.`,
  });
export const serverRefused = (reason: string) =>
  fail(reason, 'The database server refused the connection.', {
    host: 'The server refused the connection.',
  });

export const databaseDenied = (reason: string) =>
  fail(reason, 'The user may not use this database.', {
    databaseName: 'The database was not found, or this user may not use it.',
  });

/**
 * Failures the same for every dialect: a driver's ProbeError, the network policy, and DNS, TCP
 * and TLS by Node's error `code`. Undefined when the error is none of these.
 */
export function transportFailure(
  error: unknown,
  context: DatabaseContext,
): VerifyFailure | undefined {
  if (error instanceof ProbeError) {
    return error.code === 'ssl-unsupported' ? sslUnsupported() : passwordRequired();
  }
  if (error instanceof NetworkPolicyError) return notAllowed('The database address', 'host');
  const code = codeOf(error);
  if (code === undefined) return undefined;
  if (LOOKUP_CODES.has(code)) {
    return fail(code, 'The database host could not be resolved.', {
      host: 'The hostname could not be resolved.',
    });
  }
  if (code === 'ECONNREFUSED') {
    return fail(
      code,
      `The connection was refused on port ${context.port}.`,
      { port: 'The connection was refused on this port.' },
      { port: context.port },
    );
  }
  if (code === 'ETIMEDOUT') return timeoutFailure('database', context.viaSsh, context.serviceIp);
  if (UNREACHABLE_CODES.has(code)) {
    return fail(code, 'The database host is not reachable.', {
      host: 'The host is not reachable.',
    });
  }
  if (code === 'EPROTO' || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) {
    return fail(code, 'The SSL handshake with the database failed.', {
      sslEnabled: 'The SSL handshake failed.',
    });
  }
  if (code === 'ECONNRESET' || code === 'EPIPE') return serverClosed(code, context.product);
  return undefined;
}
