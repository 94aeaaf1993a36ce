import type { Kysely } from 'kysely';

// Column names are snake_case in SQL; Kysely's CamelCasePlugin maps them.
// Booleans are stored as 0/1 integers and timestamps as ISO 8601 strings on both engines.

export interface UsersTable {
  id: string;
  email: string;
  fullName: string | null;
  firstName: string | null;
  lastName: string | null;
  title: string | null;
  avatarUrl: string | null;
  isEmailVerified: number;
  createdAt: string;
}

export interface ApiKeysTable {
  id: string;
  userId: string;
  name: string | null;
  keyHash: string;
  hint: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
}

export interface OrganizationsTable {
  id: string;
  name: string;
  slug: string;
  customAiContext: string | null;
  onboardingStatus: string;
  fullEmbedEnabled: number;
  embedAllowedOrigins: string;
  jwtSecretSealed: string;
  /** The secret the last rotation replaced, sealed as `previousJwtSecret`; null when none. */
  previousJwtSecretSealed: string | null;
  /** When the previous secret stops verifying SSO tokens; null when none. */
  previousJwtSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface MembersTable {
  id: string;
  organizationId: string;
  userId: string;
  role: string;
  groups: string | null;
  createdAt: string;
}

export interface DataSourcesTable {
  id: string;
  organizationId: string;
  displayName: string;
  description: string | null;
  dialect: string;
  databaseName: string | null;
  username: string | null;
  host: string | null;
  port: number | null;
  sslEnabled: number;
  sslCustomCertificatesEnabled: number;
  sshEnabled: number;
  sshHost: string | null;
  sshPort: number | null;
  sshUsername: string | null;
  bigQueryProjectId: string | null;
  spannerInstanceId: string | null;
  snowflakeAccountId: string | null;
  snowflakeWarehouse: string | null;
  snowflakeRole: string | null;
  lastSuccessfulSyncAt: string | null;
  lastSyncStatus: string;
  lastSyncAttemptAt: string | null;
  hasCompletedFirstSync: number;
  syncErrorMessage: string | null;
  lastHealthyAt: string | null;
  lastHealthStatus: string | null;
  lastHealthCheckAttemptAt: string | null;
  healthErrorMessage: string | null;
  /** When the sync in progress started (null when none is): its lease. */
  syncStartedAt: string | null;
  /** The catalog of the last successful sync: when it was read, whether cut, how many tables. */
  catalogReadAt: string | null;
  catalogTruncated: number;
  catalogTableCount: number;
  isDemo: number;
  isServiceWarehouse: number;
  /** Sealed secrets (see domain/secret-box.ts), one column per secret field. */
  passwordSealed: string | null;
  sshPasswordSealed: string | null;
  sshPrivateKeySealed: string | null;
  sshPrivateKeyPassphraseSealed: string | null;
  snowflakePrivateKeySealed: string | null;
  snowflakePrivateKeyPassphraseSealed: string | null;
  bigQueryJsonKeySealed: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface CatalogTablesTable {
  dataSourceId: string;
  /** 0, 1, … in schema, name order: the key the schema endpoint pages by. */
  position: number;
  schemaName: string;
  tableName: string;
  kind: string;
}

export interface CatalogColumnsTable {
  dataSourceId: string;
  tablePosition: number;
  position: number;
  columnName: string;
  columnType: string;
  nullable: number;
}

export interface SsoJtiTable {
  organizationId: string;
  jti: string;
  expiresAt: string;
}

export interface RevokedSessionsTable {
  sessionId: string;
  organizationId: string;
  /** When the session could no longer have been renewed; the row may go after that. */
  expiresAt: string;
}

export interface KeyChecksTable {
  /** Which key: `secret_key` (BRIDGE_SECRET_KEY) or `session_secret` (BRIDGE_SESSION_SECRET). */
  name: string;
  /** HMAC-SHA256 of a fixed text under the key (base64url); the key itself is never stored. */
  checkValue: string;
  recordedAt: string;
}

export interface EmbedHandoffsTable {
  /** SHA-256 of the code (base64url); the code itself is never stored. */
  codeHash: string;
  organizationId: string;
  memberId: string;
  framingOrigin: string;
  expiresAt: string;
  /** Set by the one redemption that succeeds. */
  usedAt: string | null;
  /** The session that redemption started: ended if the code is presented again. */
  sessionId: string | null;
  /** When the used code was first presented again (migration 0012). */
  replayedAt: string | null;
}

/** Every organization's allow-list, a row per pattern; kept by triggers (migration 0011). */
export interface EmbedOriginPatternsTable {
  pattern: string;
  organizationId: string;
}

/** Where an organization wants its events (migration 0017). */
export interface WebhookEndpointsTable {
  id: string;
  organizationId: string;
  url: string;
  description: string | null;
  /** JSON array of event types. */
  eventTypes: string;
  secretSealed: string;
  /** The secret the last rotation replaced: it signs beside the new one until it expires. */
  previousSecretSealed: string | null;
  previousSecretExpiresAt: string | null;
  enabled: number;
  disabledReason: string | null;
  disabledAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The outbox: one row per event, written with the change it reports. */
export interface WebhookEventsTable {
  id: string;
  organizationId: string;
  type: string;
  /** The JSON body delivered: `{type, timestamp, data}`. */
  payload: string;
  createdAt: string;
}

/** One event to one endpoint, and how its sending went. */
export interface WebhookDeliveriesTable {
  id: string;
  endpointId: string;
  eventId: string;
  /** `pending`, `succeeded` or `failed` (no attempt left). */
  status: string;
  attempts: number;
  nextAttemptAt: string | null;
  /** Until when an instance is sending it. */
  leaseUntil: string | null;
  lastAttemptAt: string | null;
  lastResponseStatus: number | null;
  lastError: string | null;
  createdAt: string;
}

export interface Database {
  users: UsersTable;
  apiKeys: ApiKeysTable;
  organizations: OrganizationsTable;
  members: MembersTable;
  dataSources: DataSourcesTable;
  catalogTables: CatalogTablesTable;
  catalogColumns: CatalogColumnsTable;
  ssoJti: SsoJtiTable;
  revokedSessions: RevokedSessionsTable;
  embedHandoffs: EmbedHandoffsTable;
  embedOriginPatterns: EmbedOriginPatternsTable;
  keyChecks: KeyChecksTable;
  webhookEndpoints: WebhookEndpointsTable;
  webhookEvents: WebhookEventsTable;
  webhookDeliveries: WebhookDeliveriesTable;
}

/** The store's database handle (a transaction is one too). */
export type Db = Kysely<Database>;
