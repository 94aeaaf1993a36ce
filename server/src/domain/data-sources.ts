import {
  type CreateDataSourceBody,
  DEFAULT_PORT,
  type Dialect,
  HOST_DIALECTS,
  SECRET_FIELDS,
  type SecretField,
  UNSET_FLAGS,
  type UpdateDataSourceBody,
} from '@bridgekit/contract';
import type { Updateable } from 'kysely';
import { ApiError, type FieldFailure, notFound } from '../api-error';
import type { Deps } from '../deps';
import {
  type DataSourceRow,
  deleteDataSourceRow,
  findDataSource,
  findDataSourceForUpdate,
  insertDataSource,
  updateDataSourceRow,
} from '../store/data-sources';
import type { DataSourcesTable } from '../store/schema';
import { newId } from './ids';
import { sealedColumn } from './serialize';

const bit = (value: boolean | undefined, fallback: boolean) => ((value ?? fallback) ? 1 : 0);

/** Creates a data source; secrets are sealed with the new record's id. Does not connect. */
export async function createDataSource(
  deps: Deps,
  orgId: string,
  body: CreateDataSourceBody,
): Promise<DataSourceRow> {
  const id = newId('ds');
  const at = deps.now().toISOString();
  const row: DataSourceRow = {
    id,
    organizationId: orgId,
    displayName: body.displayName,
    description: body.description ?? null,
    dialect: body.dialect,
    databaseName: body.databaseName ?? null,
    username: body.username ?? null,
    host: body.host ?? null,
    port: body.port ?? null,
    sslEnabled: bit(body.sslEnabled, true),
    sslCustomCertificatesEnabled: 0,
    sshEnabled: bit(body.sshEnabled, false),
    sshHost: body.sshHost ?? null,
    sshPort: body.sshPort ?? null,
    sshUsername: body.sshUsername ?? null,
    bigQueryProjectId: body.bigQueryProjectId ?? null,
    spannerInstanceId: body.spannerInstanceId ?? null,
    snowflakeAccountId: body.snowflakeAccountId ?? null,
    snowflakeWarehouse: body.snowflakeWarehouse ?? null,
    snowflakeRole: body.snowflakeRole ?? null,
    lastSuccessfulSyncAt: null,
    lastSyncStatus: 'PENDING',
    lastSyncAttemptAt: null,
    hasCompletedFirstSync: 0,
    syncErrorMessage: null,
    lastHealthyAt: null,
    lastHealthStatus: null,
    lastHealthCheckAttemptAt: null,
    healthErrorMessage: null,
    syncStartedAt: null,
    catalogReadAt: null,
    catalogTruncated: 0,
    catalogTableCount: 0,
    isDemo: 0,
    isServiceWarehouse: 0,
    passwordSealed: null,
    sshPasswordSealed: null,
    sshPrivateKeySealed: null,
    sshPrivateKeyPassphraseSealed: null,
    snowflakePrivateKeySealed: null,
    snowflakePrivateKeyPassphraseSealed: null,
    bigQueryJsonKeySealed: null,
    createdAt: at,
    updatedAt: at,
  };
  for (const field of SECRET_FIELDS) {
    const value = body[field];
    if (typeof value === 'string') row[sealedColumn[field]] = deps.secretBox.seal(value, id, field);
  }
  await insertDataSource(deps.store.db, row);
  return row;
}

export async function getDataSource(deps: Deps, orgId: string, id: string): Promise<DataSourceRow> {
  const row = await findDataSource(deps.store.db, orgId, id);
  if (!row) throw notFound('Data source', 'data_source_not_found');
  return row;
}

const PLAIN_FIELDS = [
  'displayName',
  'description',
  'databaseName',
  'username',
  'host',
  'port',
  'sshHost',
  'sshPort',
  'sshUsername',
  'bigQueryProjectId',
  'spannerInstanceId',
  'snowflakeAccountId',
  'snowflakeWarehouse',
  'snowflakeRole',
] as const satisfies readonly (keyof UpdateDataSourceBody & keyof DataSourcesTable)[];

const blank = (value: string | null) => !value?.trim();

/** The columns a connection is made from: a change to one of them calls for a fresh sync. */
const CONNECTION_COLUMNS = [
  'databaseName',
  'username',
  'host',
  'port',
  'sslEnabled',
  'sshEnabled',
  'sshHost',
  'sshPort',
  'sshUsername',
  'passwordSealed',
  'sshPasswordSealed',
  'sshPrivateKeySealed',
  'sshPrivateKeyPassphraseSealed',
] as const satisfies readonly (keyof DataSourcesTable)[];

/** Whether `after` connects differently from `before` (a re-sealed secret counts as a change). */
export const connectionChanged = (before: DataSourceRow, after: DataSourceRow) =>
  CONNECTION_COLUMNS.some((column) => before[column] !== after[column]);

const SSH_SECRET_COLUMNS = [
  'sshPasswordSealed',
  'sshPrivateKeySealed',
  'sshPrivateKeyPassphraseSealed',
] as const satisfies readonly (keyof DataSourcesTable)[];

const sameHost = (a: string | null, b: string | null) =>
  (a ?? '').trim().toLowerCase() === (b ?? '').trim().toLowerCase();

/**
 * Whether the patch points the database password somewhere else: another host or port, the
 * tunnel switched on or off or moved, or TLS turned off.
 */
function databaseMoved(before: DataSourceRow, after: DataSourceRow): boolean {
  const port = (row: DataSourceRow) => row.port ?? DEFAULT_PORT[row.dialect as Dialect];
  return (
    !sameHost(before.host, after.host) ||
    port(before) !== port(after) ||
    before.sshEnabled !== after.sshEnabled ||
    !sameHost(before.sshHost, after.sshHost) ||
    (before.sshPort ?? 22) !== (after.sshPort ?? 22) ||
    (before.sslEnabled === 1 && after.sslEnabled === 0)
  );
}

/** Whether the patch points the SSH credentials at another SSH server or account. */
const sshMoved = (before: DataSourceRow, after: DataSourceRow) =>
  !sameHost(before.sshHost, after.sshHost) ||
  (before.sshPort ?? 22) !== (after.sshPort ?? 22) ||
  (before.sshUsername ?? '') !== (after.sshUsername ?? '');

/**
 * Stored secrets never follow a changed target: a patch that moves where the database (or SSH)
 * connection goes drops the stored secrets for it that the same request does not supply again.
 * Otherwise anyone allowed to edit the record could point it at a server of theirs and have the
 * bridge hand it the secret. Returns the patch's drops and which kinds were dropped.
 */
function dropMovedSecrets(
  existing: DataSourceRow,
  patch: Updateable<DataSourcesTable>,
): { database: boolean; ssh: boolean } {
  const merged = { ...existing, ...patch } as DataSourceRow;
  const dropped = { database: false, ssh: false };
  if (databaseMoved(existing, merged) && !('passwordSealed' in patch) && existing.passwordSealed) {
    patch.passwordSealed = null;
    dropped.database = true;
  }
  if (sshMoved(existing, merged)) {
    for (const column of SSH_SECRET_COLUMNS) {
      if (column in patch || !existing[column]) continue;
      patch[column] = null;
      dropped.ssh = true;
    }
  }
  return dropped;
}

/** What the record would need after the patch to still be connectable (as create checks it). */
function checkMerged(merged: DataSourceRow, sshDropped: boolean): Record<string, FieldFailure> {
  const errors: Record<string, FieldFailure> = {};
  const required = (message: string) => ({ code: 'required', message }) as const;
  if (HOST_DIALECTS.includes(merged.dialect as Dialect)) {
    if (blank(merged.host)) errors.host = required('Required');
    if (blank(merged.username)) errors.username = required('Required');
  }
  if (merged.sshEnabled) {
    const whenSsh = required('Required when sshEnabled is true');
    if (blank(merged.sshHost)) errors.sshHost = whenSsh;
    if (blank(merged.sshUsername)) errors.sshUsername = whenSsh;
    if (!merged.sshPasswordSealed && !merged.sshPrivateKeySealed) {
      errors.sshPassword = {
        code: 'ssh_secret_required',
        message: sshDropped
          ? 'The SSH server or username changed, so the stored SSH password and key no longer apply: send one again'
          : 'An SSH password or private key is required when sshEnabled is true',
      };
    }
  }
  return errors;
}

/**
 * PATCH semantics: an omitted field is unchanged; `null` for a secret is unchanged too; an
 * `unset*` flag clears its secret (a new value with its flag was refused by the contract); a
 * changed target drops the stored secrets that would follow it (dropMovedSecrets).
 */
export async function updateDataSource(
  deps: Deps,
  orgId: string,
  id: string,
  body: UpdateDataSourceBody,
): Promise<{ row: DataSourceRow; connectionChanged: boolean }> {
  // Read, check and write as one: a PATCH checks the record that its write replaces, so two
  // PATCHes that are each fine but not together can't both land.
  return deps.store.db.transaction().execute(async (tx) => {
    const existing = await findDataSourceForUpdate(tx, deps.store.engine, orgId, id);
    if (!existing) throw notFound('Data source', 'data_source_not_found');
    const patch: Updateable<DataSourcesTable> = {};
    for (const field of PLAIN_FIELDS) {
      const value = body[field];
      if (value !== undefined) (patch as Record<string, unknown>)[field] = value;
    }
    if (body.sslEnabled !== undefined) patch.sslEnabled = body.sslEnabled ? 1 : 0;
    if (body.sshEnabled !== undefined) patch.sshEnabled = body.sshEnabled ? 1 : 0;
    for (const field of SECRET_FIELDS) {
      const value = (body as Partial<Record<SecretField, string | null>>)[field];
      if (typeof value === 'string')
        patch[sealedColumn[field]] = deps.secretBox.seal(value, id, field);
    }
    for (const [flag, field] of Object.entries(UNSET_FLAGS)) {
      if ((body as Record<string, unknown>)[flag] === true) patch[sealedColumn[field]] = null;
    }
    const dropped = dropMovedSecrets(existing, patch);
    const merged = { ...existing, ...patch } as DataSourceRow;
    const fields = checkMerged(merged, dropped.ssh);
    if (Object.keys(fields).length > 0) {
      throw new ApiError('ValidationError', 'The data source would be incomplete', {
        code: 'data_source_incomplete',
        fields,
      });
    }
    patch.updatedAt = deps.now().toISOString();
    const updated = await updateDataSourceRow(tx, orgId, id, patch);
    if (!updated) throw notFound('Data source', 'data_source_not_found');
    return { row: updated, connectionChanged: connectionChanged(existing, updated) };
  });
}

export async function deleteDataSource(
  deps: Deps,
  orgId: string,
  id: string,
): Promise<DataSourceRow> {
  const deleted = await deleteDataSourceRow(deps.store.db, orgId, id);
  if (!deleted) throw notFound('Data source', 'data_source_not_found');
  return deleted;
}
