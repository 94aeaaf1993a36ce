import {
  type DataSource,
  type Member,
  type Organization,
  SECRET_FIELDS,
  type SecretField,
} from '@bridgekit/contract';
import { parseStoredOrigins } from '../embed-origins';
import type { MemberWithUser } from '../store/members';
import type { OrganizationRow } from '../store/organizations';
import type { DataSourcesTable } from '../store/schema';
import { JWT_SECRET_FIELD, previousSecretLive } from './jwt-secret';
import type { SecretBox } from './secret-box';

// Allow-list serializers: every response field is named here, so a secret column can't leak.

/**
 * The organization as the API shows it at `now` (the previous secret's grace may be over).
 * `jwtSecretFrom` adds the secret: only for an ADMIN's API key that asked for it.
 */
export function toOrganization(
  row: OrganizationRow,
  now: Date,
  options: { jwtSecretFrom?: SecretBox } = {},
): Organization {
  const org: Organization = {
    id: row.id,
    name: row.name,
    slug: row.slug,
    customAiContext: row.customAiContext,
    onboardingStatus: row.onboardingStatus as Organization['onboardingStatus'],
    fullEmbedEnabled: Boolean(row.fullEmbedEnabled),
    embedAllowedOrigins: parseStoredOrigins(row),
    previousJwtSecretExpiresAt: previousSecretLive(row, now)
      ? row.previousJwtSecretExpiresAt
      : null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
  if (options.jwtSecretFrom) {
    org.jwtSecret = options.jwtSecretFrom.open(row.jwtSecretSealed, row.id, JWT_SECRET_FIELD);
  }
  return org;
}

export function toMember(row: MemberWithUser): Member {
  return {
    id: row.id,
    createdAt: row.createdAt,
    role: row.role as Member['role'],
    userId: row.userId,
    organizationId: row.organizationId,
    user: {
      id: row.userId,
      fullName: row.userFullName,
      firstName: row.userFirstName,
      title: row.userTitle,
      avatarUrl: row.userAvatarUrl,
      email: row.userEmail,
      isEmailVerified: Boolean(row.userIsEmailVerified),
      createdAt: row.userCreatedAt,
    },
  };
}

/** The sealed column of each secret field. */
export const sealedColumn = {
  password: 'passwordSealed',
  sshPassword: 'sshPasswordSealed',
  sshPrivateKey: 'sshPrivateKeySealed',
  sshPrivateKeyPassphrase: 'sshPrivateKeyPassphraseSealed',
  snowflakePrivateKey: 'snowflakePrivateKeySealed',
  snowflakePrivateKeyPassphrase: 'snowflakePrivateKeyPassphraseSealed',
  bigQueryJsonKey: 'bigQueryJsonKeySealed',
} as const satisfies Record<SecretField, keyof DataSourcesTable>;

export function toDataSource(row: DataSourcesTable): DataSource {
  return {
    id: row.id,
    displayName: row.displayName,
    description: row.description,
    dialect: row.dialect as DataSource['dialect'],
    databaseName: row.databaseName,
    username: row.username,
    host: row.host,
    port: row.port,
    sslEnabled: Boolean(row.sslEnabled),
    sslCustomCertificatesEnabled: Boolean(row.sslCustomCertificatesEnabled),
    sshEnabled: Boolean(row.sshEnabled),
    sshHost: row.sshHost,
    sshPort: row.sshPort,
    sshUsername: row.sshUsername,
    bigQueryProjectId: row.bigQueryProjectId,
    spannerInstanceId: row.spannerInstanceId,
    snowflakeAccountId: row.snowflakeAccountId,
    snowflakeWarehouse: row.snowflakeWarehouse,
    snowflakeRole: row.snowflakeRole,
    lastSuccessfulSyncAt: row.lastSuccessfulSyncAt,
    lastSyncStatus: row.lastSyncStatus as DataSource['lastSyncStatus'],
    lastSyncAttemptAt: row.lastSyncAttemptAt,
    hasCompletedFirstSync: Boolean(row.hasCompletedFirstSync),
    syncErrorMessage: row.syncErrorMessage,
    lastHealthyAt: row.lastHealthyAt,
    lastHealthStatus: row.lastHealthStatus as DataSource['lastHealthStatus'],
    lastHealthCheckAttemptAt: row.lastHealthCheckAttemptAt,
    healthErrorMessage: row.healthErrorMessage,
    isDemo: Boolean(row.isDemo),
    isServiceWarehouse: Boolean(row.isServiceWarehouse),
    storedSecrets: SECRET_FIELDS.filter((f) => row[sealedColumn[f]] !== null),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
