import type { VerifyDataSourceBody } from '@bridgekit/contract';
import type { ParsedKey } from 'ssh2';
import {
  type DatabaseContext,
  type Phase,
  transportFailure,
  unknownFailure,
  type VerifyFailure,
} from './failures';
import { ipLiteral, type NetworkPolicy, resolveChecked } from './network-policy';
import type { Scope } from './scope';
import { sshFailure } from './ssh-failures';
import { loadPrivateKey } from './ssh-key';
import { openSshTunnel } from './ssh-tunnel';

/** The connection fields of a data source (verify's body, or a stored record's, decrypted). */
export type ConnectionInput = Pick<
  VerifyDataSourceBody,
  | 'dialect'
  | 'host'
  | 'port'
  | 'username'
  | 'password'
  | 'databaseName'
  | 'sslEnabled'
  | 'sshEnabled'
  | 'sshHost'
  | 'sshPort'
  | 'sshUsername'
  | 'sshPassword'
  | 'sshPrivateKey'
  | 'sshPrivateKeyPassphrase'
>;

/** Where a driver connects: the checked addresses, or the local end of an SSH tunnel. */
export interface Route {
  addresses: string[];
  port: number;
  servername: string | undefined;
}

export interface RouteOptions extends NetworkPolicy {
  serviceIp?: string | undefined;
}

/** Where the attempt is, for the timeout message; the route moves it along. */
export interface Progress {
  phase: Phase;
}

async function routeDirect(
  input: ConnectionInput,
  port: number,
  options: RouteOptions,
  scope: Scope,
  context: DatabaseContext,
): Promise<Route | VerifyFailure> {
  try {
    const checked = await resolveChecked(input.host ?? '', options, scope.signal);
    scope.throwIfClosed();
    return { addresses: checked.addresses, port, servername: checked.servername };
  } catch (error) {
    return transportFailure(error, context) ?? unknownFailure(error, 'host');
  }
}

async function routeViaSsh(
  input: ConnectionInput,
  port: number,
  options: RouteOptions,
  scope: Scope,
  progress: Progress,
): Promise<Route | VerifyFailure> {
  const host = input.host ?? '';
  const sshPort = input.sshPort ?? 22;
  try {
    let privateKey: ParsedKey | undefined;
    if (input.sshPrivateKey) {
      progress.phase = 'ssh-key';
      privateKey = await loadPrivateKey(
        input.sshPrivateKey,
        input.sshPrivateKeyPassphrase,
        scope.signal,
      );
      scope.throwIfClosed();
    }
    progress.phase = 'ssh';
    const ssh = await resolveChecked(input.sshHost ?? '', options, scope.signal);
    scope.throwIfClosed();
    const local = await openSshTunnel(scope, {
      ssh,
      sshPort,
      username: input.sshUsername ?? '',
      password: input.sshPassword || undefined,
      privateKey,
      // Resolved and reached by the SSH server, from its network: our policy guards this
      // service's network, so it is deliberately not applied to the database host here.
      targetHost: ipLiteral(host) ?? host,
      targetPort: port,
    });
    progress.phase = 'database';
    return {
      addresses: ['127.0.0.1'],
      port: local,
      servername: ipLiteral(host) ? undefined : host,
    };
  } catch (error) {
    return sshFailure(error, {
      sshPort,
      password: Boolean(input.sshPassword),
      privateKey: Boolean(input.sshPrivateKey),
      serviceIp: options.serviceIp,
    });
  }
}

/**
 * Opens the way to the database under the network policy: the host's checked addresses, or an
 * SSH tunnel (key decrypted, SSH host checked, one forward channel open). Everything it opens
 * closes with `scope`.
 */
export function openRoute(
  input: ConnectionInput,
  port: number,
  options: RouteOptions,
  scope: Scope,
  progress: Progress,
  context: DatabaseContext,
): Promise<Route | VerifyFailure> {
  return input.sshEnabled === true
    ? routeViaSsh(input, port, options, scope, progress)
    : routeDirect(input, port, options, scope, context);
}
