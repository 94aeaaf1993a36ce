import { z } from 'zod';
import { DataSourceId, Timestamp } from './common';
import type { FieldCode } from './error-codes';

/** POSTGRES: PostgreSQL. MYSQL: MySQL 8 and MariaDB 10.5+. */
export const Dialect = z
  .enum(['POSTGRES', 'MYSQL'], { error: 'Allowed values: POSTGRES, MYSQL' })
  .describe('POSTGRES (PostgreSQL) or MYSQL (MySQL 8, MariaDB 10.5+)');
export type Dialect = z.infer<typeof Dialect>;

/** The port a connection uses when `port` is not given: the dialect's usual one. */
export const DEFAULT_PORT = { POSTGRES: 5432, MYSQL: 3306 } as const satisfies Record<
  Dialect,
  number
>;

/** Dialects that connect to a host as a user: both fields are required. */
export const HOST_DIALECTS: readonly Dialect[] = ['POSTGRES', 'MYSQL'];

/** PENDING: never attempted; SYNCING: reading the catalog now; then SUCCEEDED or FAILED. */
export const SyncStatus = z
  .enum(['PENDING', 'SYNCING', 'SUCCEEDED', 'FAILED'])
  .describe('PENDING (never attempted) → SYNCING → SUCCEEDED or FAILED');
/** The last health check's verdict; null until the first one. */
export const HealthStatus = z.enum(['HEALTHY', 'UNHEALTHY']);

/** Input fields that are secrets: accepted, encrypted at rest, never returned. */
export const SECRET_FIELDS = [
  'password',
  'sshPassword',
  'sshPrivateKey',
  'sshPrivateKeyPassphrase',
  'snowflakePrivateKey',
  'snowflakePrivateKeyPassphrase',
  'bigQueryJsonKey',
] as const;
export type SecretField = (typeof SECRET_FIELDS)[number];
export const SecretFieldName = z.enum(SECRET_FIELDS);

/** Secrets that PATCH can clear with an `unset*` flag, and the flag for each. */
export const UNSET_FLAGS = {
  unsetPassword: 'password',
  unsetSshPassword: 'sshPassword',
  unsetSshPrivateKey: 'sshPrivateKey',
  unsetSshPrivateKeyPassphrase: 'sshPrivateKeyPassphrase',
} as const satisfies Record<string, SecretField>;

export const DataSource = z.object({
  id: DataSourceId,
  displayName: z.string(),
  description: z.string().nullable(),
  dialect: Dialect,
  databaseName: z.string().nullable(),
  username: z.string().nullable(),
  host: z.string().nullable(),
  port: z.number().int().nullable(),
  sslEnabled: z.boolean(),
  sslCustomCertificatesEnabled: z.boolean(),
  sshEnabled: z.boolean(),
  sshHost: z.string().nullable(),
  sshPort: z.number().int().nullable(),
  sshUsername: z.string().nullable(),
  bigQueryProjectId: z.string().nullable(),
  spannerInstanceId: z.string().nullable(),
  snowflakeAccountId: z.string().nullable(),
  snowflakeWarehouse: z.string().nullable(),
  snowflakeRole: z.string().nullable(),
  lastSuccessfulSyncAt: Timestamp.nullable(),
  lastSyncStatus: SyncStatus,
  lastSyncAttemptAt: Timestamp.nullable(),
  hasCompletedFirstSync: z.boolean(),
  syncErrorMessage: z.string().nullable(),
  lastHealthyAt: Timestamp.nullable(),
  lastHealthStatus: HealthStatus.nullable(),
  lastHealthCheckAttemptAt: Timestamp.nullable(),
  /** Addition: why the last health check failed (null after a success); never holds a secret. */
  healthErrorMessage: z
    .string()
    .nullable()
    .describe(
      'Why the last health check failed, in the words of a failed verify; null when it passed',
    ),
  isDemo: z.boolean(),
  isServiceWarehouse: z.boolean(),
  /** Addition: which secrets are stored (names only, never values), for edit forms. */
  storedSecrets: z.array(SecretFieldName),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type DataSource = z.infer<typeof DataSource>;

const text = (max: number) => z.string().max(max, `Must be at most ${max} characters`);
const Port = z
  .number({ error: 'Must be an integer from 0 to 65535' })
  .int('Must be an integer from 0 to 65535')
  .min(0, 'Must be an integer from 0 to 65535')
  .max(65535, 'Must be an integer from 0 to 65535');

/** Connection fields shared by verify, create and update. */
const connectionShape = {
  snowflakeAccountId: text(255).optional(),
  snowflakeWarehouse: text(255).optional(),
  snowflakeRole: text(255).optional(),
  databaseName: text(255)
    .nullable()
    .optional()
    .describe('Default: the username for POSTGRES; none (no default database) for MYSQL'),
  username: text(255).optional(),
  host: text(253).optional(),
  port: Port.optional().describe(
    `Default: ${DEFAULT_PORT.POSTGRES} for POSTGRES, ${DEFAULT_PORT.MYSQL} for MYSQL`,
  ),
  bigQueryProjectId: text(255).optional(),
  spannerInstanceId: text(255).optional(),
  sshHost: text(253).optional(),
  sshPort: Port.optional(),
  sshUsername: text(255).optional(),
};

const SSH_KEY_RULES =
  'OpenSSH, PEM, PKCS#8 or PuTTY: Ed25519, ECDSA (P-256/384/521) or RSA of 1024 to 8192 bits; an encrypted OpenSSH key at most 128 KDF rounds. Otherwise 400 with code ssh_key_unsupported, ssh_key_invalid or ssh_key_too_slow on this field';
/** What a PATCH does to stored secrets when the target changes (docs/security.md). */
const DROPPED_ON_MOVE = {
  password:
    'Kept when omitted, unless the PATCH changes host, port, sshEnabled, sshHost, sshPort or turns sslEnabled off: then the stored password is dropped unless sent again',
  ssh: 'Kept when omitted, unless the PATCH changes sshHost, sshPort or sshUsername: then the stored SSH password, key and passphrase are dropped unless sent again',
};

const verifyShape = {
  dialect: Dialect,
  ...connectionShape,
  snowflakePrivateKey: text(16_384).optional(),
  snowflakePrivateKeyPassphrase: text(1024).optional(),
  password: text(1024).optional(),
  bigQueryJsonKey: text(32_768).optional(),
  sslEnabled: z
    .boolean()
    .optional()
    .describe(
      'Default true: TLS required, certificate not checked (sslmode=require). MySQL: a password asked for itself (sha256_password, caching_sha2_password full authentication) is sent only over TLS whose certificate verifies, else the verify fails with mysql_auth_needs_verified_tls; mysql_clear_password never. PostgreSQL: a password asked for in clear text (password) or as MD5 (md5) likewise goes only over TLS whose certificate verifies, else postgres_auth_needs_verified_tls; SCRAM-SHA-256 always',
    ),
  sshEnabled: z.boolean().optional(),
  sshPassword: text(1024).optional(),
  sshPrivateKey: text(16_384).optional().describe(SSH_KEY_RULES),
  sshPrivateKeyPassphrase: text(1024).optional(),
};

const REQUIRED = 'Required';

/** A refinement's issue on one field; `params.code` becomes the field's code in `fieldCodes`. */
const fieldIssue = (field: string, code: FieldCode, message: string) => ({
  code: 'custom' as const,
  path: [field],
  message,
  params: { code },
});
const filled = (v: unknown) => typeof v === 'string' && v.trim() !== '';

/**
 * What a POSTGRES or MYSQL connection needs before anything can connect. Runs even when
 * other fields failed (`when`), so one response names every missing field.
 */
function requireConnectionFields(input: unknown, ctx: z.RefinementCtx) {
  const value = input as Record<string, unknown>;
  const require = (field: string) => {
    if (!filled(value[field])) ctx.addIssue(fieldIssue(field, 'required', REQUIRED));
  };
  if (HOST_DIALECTS.includes(value.dialect as Dialect)) {
    require('host');
    require('username');
  }
  if (value.sshEnabled === true) {
    require('sshHost');
    require('sshUsername');
    if (!filled(value.sshPassword) && !filled(value.sshPrivateKey))
      ctx.addIssue(
        fieldIssue(
          'sshPassword',
          'ssh_secret_required',
          'An SSH password or private key is required',
        ),
      );
  }
}

/** Run a refinement whenever the input is an object, even if some fields already failed. */
const onObjects = {
  when: (payload: { value: unknown }) =>
    typeof payload.value === 'object' && payload.value !== null && !Array.isArray(payload.value),
};

export const VerifyDataSourceBody = z
  .strictObject(verifyShape)
  .superRefine(requireConnectionFields, onObjects);
export type VerifyDataSourceBody = z.infer<typeof VerifyDataSourceBody>;

export const VerifyResult = z.object({ success: z.literal(true) });
export type VerifyResult = z.infer<typeof VerifyResult>;

export const CreateDataSourceBody = z
  .strictObject({
    ...verifyShape,
    displayName: z
      .string()
      .trim()
      .min(1, 'Must be at least 1 character')
      .max(200, 'Must be at most 200 characters'),
    description: text(2000).optional(),
  })
  .superRefine(requireConnectionFields, onObjects);
export type CreateDataSourceBody = z.infer<typeof CreateDataSourceBody>;

const nullableSecret = (max: number) => text(max).nullable().optional();
const unsetFlag = z.boolean().nullable().optional();

export const UpdateDataSourceBody = z
  .strictObject({
    ...connectionShape,
    /** Addition: rename and describe without recreating. */
    displayName: z
      .string()
      .trim()
      .min(1, 'Must be at least 1 character')
      .max(200, 'Must be at most 200 characters')
      .optional(),
    description: text(2000).nullable().optional(),
    snowflakePrivateKey: text(16_384).optional(),
    snowflakePrivateKeyPassphrase: text(1024).optional(),
    sslEnabled: z.boolean().optional(),
    sshEnabled: z.boolean().optional(),
    sshPassword: nullableSecret(1024).describe(DROPPED_ON_MOVE.ssh),
    sshPrivateKey: nullableSecret(16_384).describe(`${DROPPED_ON_MOVE.ssh}. ${SSH_KEY_RULES}`),
    sshPrivateKeyPassphrase: nullableSecret(1024).describe(DROPPED_ON_MOVE.ssh),
    password: nullableSecret(1024).describe(DROPPED_ON_MOVE.password),
    bigQueryJsonKey: nullableSecret(32_768),
    unsetPassword: unsetFlag,
    unsetSshPassword: unsetFlag,
    unsetSshPrivateKey: unsetFlag,
    unsetSshPrivateKeyPassphrase: unsetFlag,
  })
  .superRefine((value, ctx) => {
    for (const [flag, field] of Object.entries(UNSET_FLAGS)) {
      const v = value as Record<string, unknown>;
      if (v[flag] === true && typeof v[field] === 'string') {
        ctx.addIssue(
          fieldIssue(flag, 'conflicting_unset', `Cannot be combined with a new ${field}`),
        );
      }
    }
  }, onObjects);
export type UpdateDataSourceBody = z.infer<typeof UpdateDataSourceBody>;

export const DataSourceParams = z.strictObject({ orgId: z.string(), id: z.string() });
