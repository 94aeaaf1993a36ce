import { NetworkPolicyError } from './network-policy';
import { PostgresProbeError } from './postgres';
import { SshKeyError } from './ssh-key';
import { MAX_KDF_ROUNDS } from './ssh-key-kdf';
import { SshTunnelError } from './ssh-tunnel';
import type { VerifyFailure } from './verify';

/**
 * Why a verify failed, as a 422's detail and the form fields to blame: an unresolvable host
 * (host), a refused connection (port), rejected credentials (username, password), a missing
 * database (databaseName), no SSL where it is required (sslEnabled), a timeout (host, naming
 * the service's outbound address for the firewall), SSH failures (the ssh* field at fault),
 * a target the SSH host can't reach (host), an address the network policy refuses (host or
 * sshHost). Every library failure is classified by a stable code (Node `code`, SQLSTATE,
 * ssh2 `level`, channel-open reason), never by message text. No message here is built from
 * user input, so no secret can reach one.
 */

type Field =
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

function fail(
  reason: string,
  detail: string,
  fields: Partial<Record<Field, string>>,
): VerifyFailure {
  return { ok: false, detail, fieldErrors: fields as Record<string, string>, reason };
}

const LOOKUP_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME']);
const UNREACHABLE_CODES = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN']);
const SQLSTATE = /^[0-9A-Z]{5}$/;

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function unknown(error: unknown, field: 'host' | 'sshHost'): VerifyFailure {
  const name = error instanceof Error ? error.name : typeof error;
  return fail(`unknown:${name}`, 'The connection failed for an unexpected reason.', {
    [field]: 'The connection failed.',
  });
}

// The network policy refused the address a host resolved to.
const notAllowed = (what: string, field: 'host' | 'sshHost') =>
  fail('policy', `${what} is not allowed.`, { [field]: 'This address is not allowed.' });

/** Where a verify was when its deadline passed. */
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
  if (phase === 'ssh') {
    return fail('timeout', `The SSH host did not answer in time.${allow}`, {
      sshHost: `The connection timed out.${allow}`,
    });
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
  return fail('timeout', `The connection to the database timed out.${hint}`, {
    host: `The connection timed out.${hint}`,
  });
}

export function databaseFailure(
  error: unknown,
  context: { port: number; viaSsh: boolean; serviceIp: string | undefined },
): VerifyFailure {
  if (error instanceof NetworkPolicyError) return notAllowed('The database address', 'host');
  if (error instanceof PostgresProbeError) {
    return error.code === 'ssl-unsupported'
      ? fail('ssl-unsupported', 'The database server does not accept SSL connections.', {
          sslEnabled: 'The server does not accept SSL connections.',
        })
      : fail('no-password', 'The database server requires a password.', {
          username: 'Authentication failed.',
          password: 'A password is required.',
        });
  }
  const code = codeOf(error);
  if (code === undefined) {
    // pg's "Connection terminated unexpectedly": the peer closed without a protocol error.
    return fail('connection-closed', 'The server closed the connection unexpectedly.', {
      host: 'The server closed the connection. Check that this is a PostgreSQL server.',
    });
  }
  if (LOOKUP_CODES.has(code)) {
    return fail(code, 'The database host could not be resolved.', {
      host: 'The hostname could not be resolved.',
    });
  }
  if (code === 'ECONNREFUSED') {
    return fail(code, `The connection was refused on port ${context.port}.`, {
      port: 'The connection was refused on this port.',
    });
  }
  if (code === 'ETIMEDOUT') return timeoutFailure('database', context.viaSsh, context.serviceIp);
  if (UNREACHABLE_CODES.has(code)) {
    return fail(code, 'The database host is not reachable.', {
      host: 'The host is not reachable.',
    });
  }
  if (code === '28P01' || code === '28000') {
    return fail(code, 'The database rejected the username or password.', {
      username: 'Authentication failed.',
      password: 'Authentication failed.',
    });
  }
  if (code === '3D000') {
    return fail(code, 'The database does not exist.', {
      databaseName: 'The database was not found.',
    });
  }
  if (code === 'EPROTO' || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) {
    return fail(code, 'The SSL handshake with the database failed.', {
      sslEnabled: 'The SSL handshake failed.',
    });
  }
  if (SQLSTATE.test(code)) {
    return fail(code, 'The database server refused the connection.', {
      host: 'The server refused the connection.',
    });
  }
  if (code === 'ECONNRESET' || code === 'EPIPE') {
    return fail(code, 'The server closed the connection unexpectedly.', {
      host: 'The server closed the connection. Check that this is a PostgreSQL server.',
    });
  }
  return unknown(error, 'host');
}

/** What an SSH failure's message depends on: the port, the credentials sent, the service IP. */
interface SshContext {
  sshPort: number;
  password: boolean;
  privateKey: boolean;
  serviceIp: string | undefined;
}

export function sshFailure(error: unknown, context: SshContext): VerifyFailure {
  if (error instanceof NetworkPolicyError) return notAllowed('The SSH host address', 'sshHost');
  if (error instanceof SshKeyError) return sshKeyFailure(error);
  if (error instanceof SshTunnelError) return tunnelFailure(error, context);
  const code = codeOf(error);
  if (code !== undefined && LOOKUP_CODES.has(code)) {
    return fail(`ssh-${code}`, 'The SSH host could not be resolved.', {
      sshHost: 'The hostname could not be resolved.',
    });
  }
  return unknown(error, 'sshHost');
}

function sshKeyFailure(error: SshKeyError): VerifyFailure {
  if (error.code === 'ssh-key-passphrase') {
    return fail('ssh-passphrase', 'The SSH private key could not be decrypted.', {
      sshPrivateKeyPassphrase: 'The passphrase is missing or wrong.',
    });
  }
  if (error.code === 'ssh-key-rounds') {
    return fail(
      'ssh-key-rounds',
      `The SSH private key asks for more than ${MAX_KDF_ROUNDS} key-derivation rounds.`,
      {
        sshPrivateKey: `The key uses more than ${MAX_KDF_ROUNDS} KDF rounds. Re-encrypt it with fewer (ssh-keygen -p -a 100).`,
      },
    );
  }
  return fail('ssh-key', 'The SSH private key could not be read.', {
    sshPrivateKey: 'The private key could not be read or is not supported.',
  });
}

function tunnelFailure(error: SshTunnelError, context: SshContext): VerifyFailure {
  switch (error.failure) {
    case 'ssh-auth': {
      const fields: Partial<Record<Field, string>> = { sshUsername: 'SSH authentication failed.' };
      if (context.password) fields.sshPassword = 'SSH authentication failed.';
      if (context.privateKey) fields.sshPrivateKey = 'SSH authentication failed.';
      return fail('ssh-auth', 'The SSH server rejected the username or credentials.', fields);
    }
    case 'ssh-timeout':
      return timeoutFailure('ssh', true, context.serviceIp);
    case 'ssh-forward':
      // RFC 4254 SSH_OPEN_ADMINISTRATIVELY_PROHIBITED = 1; anything else: could not connect.
      return error.openFailureReason === 1
        ? fail(
            'ssh-forward-prohibited',
            'The SSH server does not allow forwarding to the database host.',
            {
              host: 'The SSH server does not allow connections to this host.',
            },
          )
        : fail('ssh-forward-failed', 'The database host is not reachable from the SSH host.', {
            host: 'The host is not reachable from the SSH host.',
          });
    case 'ssh-socket':
      if (error.socketCode === 'ECONNREFUSED') {
        return fail(
          'ssh-ECONNREFUSED',
          `The SSH connection was refused on port ${context.sshPort}.`,
          {
            sshPort: 'The connection was refused on this port.',
          },
        );
      }
      if (error.socketCode === 'ETIMEDOUT') return timeoutFailure('ssh', true, context.serviceIp);
      if (error.socketCode && UNREACHABLE_CODES.has(error.socketCode)) {
        return fail(`ssh-${error.socketCode}`, 'The SSH host is not reachable.', {
          sshHost: 'The host is not reachable.',
        });
      }
      return fail(`ssh-${error.socketCode ?? 'socket'}`, 'The SSH connection failed.', {
        sshHost: 'The connection to the SSH server failed.',
      });
    case 'ssh-handshake':
    case 'ssh-closed':
      return fail(error.failure, 'The SSH handshake did not complete.', {
        sshHost: 'The SSH handshake failed. Check that this is an SSH server.',
      });
  }
}
