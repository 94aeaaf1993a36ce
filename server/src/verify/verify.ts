import type { VerifyDataSourceBody } from '@bridgekit/contract';
import type { ParsedKey } from 'ssh2';
import { databaseFailure, type Phase, sshFailure, timeoutFailure } from './failures';
import { ipLiteral, resolveChecked, tryNextAddress } from './network-policy';
import { probePostgres } from './postgres';
import { Scope } from './scope';
import { loadPrivateKey } from './ssh-key';
import { openSshTunnel } from './ssh-tunnel';

export interface VerifyOptions {
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  /** The service's outbound address, named in timeout messages for firewall allow-lists. */
  serviceIp?: string | undefined;
}

export type VerifyOutcome =
  | { ok: true }
  | { ok: false; detail: string; fieldErrors: Record<string, string>; reason: string };
export type VerifyFailure = Extract<VerifyOutcome, { ok: false }>;

interface Progress {
  phase: Phase;
  queried: boolean;
}

/**
 * Connects with the given credentials, runs `SELECT 1` and disconnects, all within
 * one deadline. Never throws for a connection failure: the outcome says which fields
 * to fix. Nothing it opens outlives the call.
 */
export async function verifyConnection(
  input: VerifyDataSourceBody,
  options: VerifyOptions,
): Promise<VerifyOutcome> {
  const scope = new Scope();
  const progress: Progress = { phase: input.sshEnabled ? 'ssh' : 'database', queried: false };
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), options.timeoutMs);
  });
  try {
    const result = await Promise.race([attempt(input, options, scope, progress), deadline]);
    if (result !== 'timeout') return result;
    if (progress.queried) return { ok: true }; // only the polite goodbye was slow
    return timeoutFailure(progress.phase, input.sshEnabled === true, options.serviceIp);
  } finally {
    clearTimeout(timer);
    scope.close();
  }
}

/** Where pg connects: the checked addresses, or the local end of an SSH tunnel. */
interface Route {
  addresses: string[];
  port: number;
  servername: string | undefined;
}

async function routeDirect(
  input: VerifyDataSourceBody,
  options: VerifyOptions,
  scope: Scope,
): Promise<Route | VerifyFailure> {
  const port = input.port ?? 5432;
  try {
    const checked = await resolveChecked(input.host ?? '', options, scope.signal);
    scope.throwIfClosed();
    return { addresses: checked.addresses, port, servername: checked.servername };
  } catch (error) {
    return databaseFailure(error, { port, viaSsh: false, serviceIp: options.serviceIp });
  }
}

async function routeViaSsh(
  input: VerifyDataSourceBody,
  options: VerifyOptions,
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
    const port = await openSshTunnel(scope, {
      ssh,
      sshPort,
      username: input.sshUsername ?? '',
      password: input.sshPassword || undefined,
      privateKey,
      // Resolved and reached by the SSH server, from its network: our policy guards this
      // service's network, so it is deliberately not applied to the database host here.
      targetHost: ipLiteral(host) ?? host,
      targetPort: input.port ?? 5432,
    });
    progress.phase = 'database';
    return { addresses: ['127.0.0.1'], port, servername: ipLiteral(host) ? undefined : host };
  } catch (error) {
    return sshFailure(error, {
      sshPort,
      password: Boolean(input.sshPassword),
      privateKey: Boolean(input.sshPrivateKey),
      serviceIp: options.serviceIp,
    });
  }
}

async function attempt(
  input: VerifyDataSourceBody,
  options: VerifyOptions,
  scope: Scope,
  progress: Progress,
): Promise<VerifyOutcome> {
  const viaSsh = input.sshEnabled === true;
  const route = viaSsh
    ? await routeViaSsh(input, options, scope, progress)
    : await routeDirect(input, options, scope);
  if ('ok' in route) return route;

  let failure: unknown;
  for (const address of route.addresses) {
    try {
      await probePostgres(
        scope,
        {
          address,
          port: route.port,
          servername: route.servername,
          ssl: input.sslEnabled ?? true,
          user: input.username ?? '',
          password: input.password,
          database: input.databaseName ?? input.username ?? '',
        },
        () => {
          progress.queried = true;
        },
      );
      return { ok: true };
    } catch (error) {
      if (progress.queried) return { ok: true };
      failure = error;
      if (!tryNextAddress(error)) break;
    }
  }
  const port = input.port ?? 5432;
  return databaseFailure(failure, { port, viaSsh, serviceIp: options.serviceIp });
}
