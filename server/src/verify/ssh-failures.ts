import {
  codeOf,
  type Field,
  fail,
  LOOKUP_CODES,
  notAllowed,
  timeoutFailure,
  UNREACHABLE_CODES,
  unknownFailure,
  type VerifyFailure,
} from './failures';
import { NetworkPolicyError } from './network-policy';
import { SshKeyError } from './ssh-key';
import { MAX_KDF_ROUNDS } from './ssh-key-kdf';
import { MAX_RSA_BITS, MIN_RSA_BITS } from './ssh-key-shape';
import { SshTunnelError } from './ssh-tunnel';

// SSH failures by stable signals: SshKeyError codes, ssh2's `level`, the channel-open reason,
// the socket's Node `code`.

/** What an SSH failure's message depends on: the port, the credentials sent, the service IP. */
export interface SshContext {
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
  return unknownFailure(error, 'sshHost');
}

/** A key refused by its own content (type, size, rounds, passphrase), before any connection. */
export function sshKeyFailure(error: SshKeyError): VerifyFailure {
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
      { maxRounds: MAX_KDF_ROUNDS },
    );
  }
  if (error.code === 'ssh-key-unsupported') {
    return fail(
      'ssh-key-unsupported',
      'The SSH private key is of an unsupported type or size.',
      {
        sshPrivateKey: `Use an Ed25519, ECDSA or RSA key; RSA from ${MIN_RSA_BITS} to ${MAX_RSA_BITS} bits.`,
      },
      { minRsaBits: MIN_RSA_BITS, maxRsaBits: MAX_RSA_BITS },
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
          { sshPort: 'The connection was refused on this port.' },
          { sshPort: context.sshPort },
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
