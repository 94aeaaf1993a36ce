import type { RouteInput } from '@bridgekit/client';
import type { DataSource, SecretField, UNSET_FLAGS } from '@bridgekit/contract';
import type { FormMessages } from '../provider/messages';
import { DEFAULT_PORTS, type FormDialect } from './connection-string';

export type VerifyBody = RouteInput<'verifyDataSource'>['body'];
export type CreateBody = RouteInput<'createDataSource'>['body'];
export type UpdateBody = RouteInput<'updateDataSource'>['body'];

/** Secrets the form edits: the ones PATCH can clear. */
export type FormSecret = (typeof UNSET_FLAGS)[keyof typeof UNSET_FLAGS];
type UnsetFlag = keyof typeof UNSET_FLAGS;

// Written out rather than imported: the contract module would bring zod into the bundle.
const UNSET_FLAG_OF = {
  password: 'unsetPassword',
  sshPassword: 'unsetSshPassword',
  sshPrivateKey: 'unsetSshPrivateKey',
  sshPrivateKeyPassphrase: 'unsetSshPrivateKeyPassphrase',
} as const satisfies { [F in FormSecret]: UnsetFlag };
export const FORM_SECRETS = /* @__PURE__ */ Object.keys(UNSET_FLAG_OF) as FormSecret[];

/** What happens to a stored secret on save. Secrets that are not stored have no mode. */
export type SecretMode = 'stored' | 'replace' | 'remove';
export type SecretModes = Partial<Record<FormSecret, SecretMode>>;

export interface FormValues {
  dialect: FormDialect;
  displayName: string;
  host: string;
  port: string;
  databaseName: string;
  username: string;
  password: string;
  sslEnabled: boolean;
  sshEnabled: boolean;
  sshHost: string;
  sshPort: string;
  sshUsername: string;
  sshAuth: 'password' | 'privateKey';
  sshPassword: string;
  sshPrivateKey: string;
  sshPrivateKeyPassphrase: string;
}

export type FieldErrors = Record<string, string>;

export function valuesOf(record?: DataSource | null): FormValues {
  const stored = record?.storedSecrets ?? [];
  const dialect = record?.dialect ?? 'POSTGRES';
  return {
    dialect,
    displayName: record?.displayName ?? '',
    host: record?.host ?? '',
    port: String(record?.port ?? DEFAULT_PORTS[dialect]),
    databaseName: record?.databaseName ?? '',
    username: record?.username ?? '',
    password: '',
    sslEnabled: record?.sslEnabled ?? true,
    sshEnabled: record?.sshEnabled ?? false,
    sshHost: record?.sshHost ?? '',
    sshPort: String(record?.sshPort ?? 22),
    sshUsername: record?.sshUsername ?? '',
    sshAuth: stored.includes('sshPrivateKey') ? 'privateKey' : 'password',
    sshPassword: '',
    sshPrivateKey: '',
    sshPrivateKeyPassphrase: '',
  };
}

export function secretModesOf(record?: DataSource | null): SecretModes {
  const modes: SecretModes = {};
  for (const field of record?.storedSecrets ?? []) {
    if (isFormSecret(field)) modes[field] = 'stored';
  }
  return modes;
}

const isFormSecret = (field: SecretField | string): field is FormSecret => field in UNSET_FLAG_OF;

/** The secret to send: typed by the user, unless a stored one is kept or removed. */
function secretValue(values: FormValues, modes: SecretModes, field: FormSecret) {
  const mode = modes[field];
  if (mode === 'stored' || mode === 'remove') return undefined;
  return values[field] || undefined;
}

/** Secrets in use: the SSH secrets of the chosen authentication method only. */
function activeSecrets(values: FormValues): FormSecret[] {
  if (!values.sshEnabled) return ['password'];
  return values.sshAuth === 'password'
    ? ['password', 'sshPassword']
    : ['password', 'sshPrivateKey', 'sshPrivateKeyPassphrase'];
}

const toPort = (text: string) => (text.trim() === '' ? undefined : Number(text.trim()));

export function toVerifyBody(values: FormValues, modes: SecretModes): VerifyBody {
  const body: VerifyBody = {
    dialect: values.dialect,
    host: values.host.trim(),
    username: values.username.trim(),
    sslEnabled: values.sslEnabled,
    sshEnabled: values.sshEnabled,
  };
  const port = toPort(values.port);
  if (port !== undefined) body.port = port;
  if (values.databaseName.trim()) body.databaseName = values.databaseName.trim();
  if (values.sshEnabled) {
    body.sshHost = values.sshHost.trim();
    body.sshUsername = values.sshUsername.trim();
    const sshPort = toPort(values.sshPort);
    if (sshPort !== undefined) body.sshPort = sshPort;
  }
  for (const field of activeSecrets(values)) {
    const value = secretValue(values, modes, field);
    if (value !== undefined) body[field] = value;
  }
  return body;
}

export const toCreateBody = (values: FormValues, modes: SecretModes): CreateBody => ({
  ...toVerifyBody(values, modes),
  displayName: values.displayName.trim(),
});

/** Only what changed; removed secrets as `unset*` flags, and secrets of an unused SSH method cleared. */
export function toUpdateBody(
  values: FormValues,
  modes: SecretModes,
  record: DataSource,
): UpdateBody {
  const next = toCreateBody(values, modes) as Record<string, unknown>;
  const body: Record<string, unknown> = {};
  const fields = [
    'displayName',
    'host',
    'port',
    'databaseName',
    'username',
    'sslEnabled',
    'sshEnabled',
    'sshHost',
    'sshPort',
    'sshUsername',
  ] as const;
  for (const field of fields) {
    const value = next[field] ?? (field === 'databaseName' ? null : undefined);
    if (value !== undefined && value !== record[field]) body[field] = value;
  }
  const active = activeSecrets(values);
  for (const field of FORM_SECRETS) {
    const value = active.includes(field) ? secretValue(values, modes, field) : undefined;
    if (value !== undefined) body[field] = value;
    else if (
      modes[field] === 'remove' ||
      (modes[field] && values.sshEnabled && field !== 'password' && !active.includes(field))
    )
      body[UNSET_FLAG_OF[field]] = true;
  }
  return body as UpdateBody;
}

const sameHost = (a: unknown, b: unknown) =>
  String(a ?? '')
    .trim()
    .toLowerCase() ===
  String(b ?? '')
    .trim()
    .toLowerCase();

/**
 * The stored secrets the bridge will drop on this update, as it does (a changed target never
 * takes the stored secrets with it): the password when the host, port, tunnel or TLS-off
 * changes; the SSH secrets when the SSH host, port or username changes. Only those kept as
 * stored (not replaced in the same save).
 */
export function droppedSecrets(
  body: UpdateBody,
  modes: SecretModes,
  record: DataSource,
): FormSecret[] {
  const after = { ...record, ...body } as DataSource;
  const port = (r: DataSource) => r.port ?? DEFAULT_PORTS[r.dialect as FormDialect];
  const sshServerMoved =
    !sameHost(record.sshHost, after.sshHost) || (record.sshPort ?? 22) !== (after.sshPort ?? 22);
  const sshMoved = sshServerMoved || (record.sshUsername ?? '') !== (after.sshUsername ?? '');
  const dbMoved =
    sshServerMoved ||
    !sameHost(record.host, after.host) ||
    port(record) !== port(after) ||
    record.sshEnabled !== after.sshEnabled ||
    (record.sslEnabled && !after.sslEnabled);
  const moved = (field: FormSecret) => (field === 'password' ? dbMoved : sshMoved);
  return FORM_SECRETS.filter(
    (field) => modes[field] === 'stored' && body[field] === undefined && moved(field),
  );
}

/** True when the update touches anything a connection depends on. */
export const changesConnection = (body: UpdateBody) =>
  Object.keys(body).some((key) => key !== 'displayName');

const isPort = (text: string) => /^\d{1,5}$/.test(text.trim()) && Number(text) <= 65535;

/** Checks made before any request; same shape as the server's fieldErrors. */
export function checkValues(
  values: FormValues,
  modes: SecretModes,
  messages: FormMessages,
  forSave: boolean,
): FieldErrors {
  const errors: FieldErrors = {};
  const require = (field: keyof FormValues) => {
    if (!String(values[field]).trim()) errors[field] = messages.required;
  };
  if (forSave) require('displayName');
  require('host');
  if (values.port.trim() && !isPort(values.port)) errors.port = messages.invalidPort;
  require('username');
  if (values.sshEnabled) {
    require('sshHost');
    if (values.sshPort.trim() && !isPort(values.sshPort)) errors.sshPort = messages.invalidPort;
    require('sshUsername');
    const secret = values.sshAuth === 'password' ? 'sshPassword' : 'sshPrivateKey';
    if (!secretValue(values, modes, secret) && modes[secret] !== 'stored') {
      errors[secret] = messages.sshSecretRequired;
    }
  }
  return errors;
}

/** Server field names to the form's: `unsetPassword` → `password`. */
function fieldOf(name: string): string {
  for (const [field, flag] of Object.entries(UNSET_FLAG_OF)) if (flag === name) return field;
  return name;
}

/** The server's fieldErrors on the form's fields; with a key in use, an SSH password error is the key's. */
export function formFieldErrors(serverErrors: FieldErrors, values: FormValues): FieldErrors {
  const fields: FieldErrors = {};
  for (const [name, message] of Object.entries(serverErrors)) {
    let field = fieldOf(name);
    if (field === 'sshPassword' && values.sshAuth === 'privateKey') field = 'sshPrivateKey';
    fields[field] = message;
  }
  return fields;
}
