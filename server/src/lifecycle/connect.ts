import type { Dialect } from '@bridgekit/contract';
import type { Deps } from '../deps';
import type { DataSourceRow } from '../store/data-sources';
import {
  type Connection,
  type ConnectionInput,
  type ConnectionOutcome,
  withConnection,
} from '../verify/connection';

/** A stored data source as verify's input: its secrets opened with the record's id. */
export function connectionInputOf(deps: Deps, row: DataSourceRow): ConnectionInput {
  const open = (sealed: string | null, field: string) =>
    sealed === null ? undefined : deps.secretBox.open(sealed, row.id, field);
  return {
    dialect: row.dialect as Dialect,
    host: row.host ?? undefined,
    port: row.port ?? undefined,
    username: row.username ?? undefined,
    password: open(row.passwordSealed, 'password'),
    databaseName: row.databaseName,
    sslEnabled: Boolean(row.sslEnabled),
    sshEnabled: Boolean(row.sshEnabled),
    sshHost: row.sshHost ?? undefined,
    sshPort: row.sshPort ?? undefined,
    sshUsername: row.sshUsername ?? undefined,
    sshPassword: open(row.sshPasswordSealed, 'sshPassword'),
    sshPrivateKey: open(row.sshPrivateKeySealed, 'sshPrivateKey'),
    sshPrivateKeyPassphrase: open(row.sshPrivateKeyPassphraseSealed, 'sshPrivateKeyPassphrase'),
  };
}

/**
 * Connects to a stored data source the way verify does (network policy, TLS, SSH tunnel) and
 * runs `work`, within `limits.timeoutMs`, reading at most `limits.maxReadBytes` (a connection
 * check's cap if unset). The caller holds a connection slot.
 */
export function connectStored<T>(
  deps: Deps,
  row: DataSourceRow,
  limits: { timeoutMs: number; maxReadBytes?: number },
  work: (connection: Connection, signal: AbortSignal) => Promise<T>,
): Promise<ConnectionOutcome<T>> {
  return withConnection(
    connectionInputOf(deps, row),
    {
      ...limits,
      allowPrivateNetworks: deps.config.allowPrivateNetworks,
      serviceIp: deps.config.serviceIp,
    },
    work,
  );
}
