import type { ErrorCode, FieldCode } from '@bridgekit/contract';

/** A translation of a server failure: text, or text built from the values the failure names. */
export type FailureText = string | ((params: Record<string, string | number>) => string);

const dateFormat = /* @__PURE__ */ new Intl.DateTimeFormat('en-US', {
  dateStyle: 'medium',
  timeZone: 'UTC',
});

/** The strings every component may need; `BridgeProvider` starts from these. */
const coreMessages = {
  retry: 'Try again',
  cancel: 'Cancel',
  close: 'Close',
  somethingWentWrong: 'Something went wrong. Try again.',
  networkError: 'The service could not be reached. Check your connection and try again.',
  /**
   * The bridge's failures by `error.code` (`auth_failed`, `admin_required`…). A code without an
   * entry shows the bridge's own English `detail`.
   */
  errorCodes: {} as Partial<Record<ErrorCode, FailureText>>,
  /** Field failures by field code (`required`, `auth_failed`…); else the bridge's field message. */
  fieldCodes: {} as Partial<Record<FieldCode, FailureText>>,

  memberLoading: 'Loading member…',
  memberNotFound: 'This member could not be found.',
  memberLoadFailed: 'The member could not be loaded.',
  roleAdmin: 'Admin',
  roleMember: 'Member',
  emailVerified: 'Verified',
  memberSince: (createdAt: string) => `Member since ${dateFormat.format(new Date(createdAt))}`,

  orgPickerPlaceholder: 'Select an organization',
  orgPickerTitle: 'Select an organization',
  orgSearchLabel: 'Search organizations',
  orgSearchPlaceholder: 'Search by name or slug',
  orgListLabel: 'Organizations',
  orgsLoading: 'Loading organizations…',
  orgsEmpty: 'No organizations yet.',
  orgsNoMatch: (query: string) => `No organizations match “${query}”.`,
  orgsLoadFailed: 'The organizations could not be loaded.',
  loadMore: 'Load more',
  loadingMore: 'Loading more…',

  dataSourceLoading: 'Loading data source…',
  dataSourceNotFound: 'This data source could not be found.',
  dataSourceLoadFailed: 'The data source could not be loaded.',
  sectionConnection: 'Connection',
  sectionSsl: 'SSL',
  sectionSsh: 'SSH tunnel',
  displayName: 'Display name',
  host: 'Host',
  port: 'Port',
  databaseName: 'Database',
  databaseNameHint: 'Leave empty to use the username.',
  username: 'Username',
  password: 'Password',
  sslEnabled: 'Require SSL (TLS)',
  sshEnabled: 'Connect through an SSH tunnel',
  sshHost: 'SSH host',
  sshPort: 'SSH port',
  sshUsername: 'SSH username',
  sshAuth: 'SSH authentication',
  sshAuthPassword: 'Password',
  sshAuthKey: 'Private key',
  sshPassword: 'SSH password',
  sshPrivateKey: 'SSH private key',
  sshPrivateKeyFile: 'Load key from a file',
  sshPrivateKeyPassphrase: 'Key passphrase',
  secretStored: 'Stored',
  secretReplace: 'Replace',
  secretRemove: 'Remove',
  secretKeep: 'Keep stored value',
  secretWillBeRemoved: 'Will be removed when you save',
  secretUndo: 'Undo',
  secretNotSet: 'Not set',
  /** The accessible name of a secret's button: "Replace Password". */
  secretAction: (action: string, field: string) => `${action} ${field}`,
  storedSecretsNotTested:
    'Stored secrets are not sent when testing. Replace them to test with them.',
  required: 'Required',
  invalidPort: 'Must be an integer from 0 to 65535',
  sshSecretRequired: 'Enter an SSH password or private key',
  checkFields: 'Please check the highlighted fields.',
  readOnly: 'You can view this data source. Only admins of this organization can change it.',
  readOnlyCreate: 'Only admins of this organization can add data sources.',
  testConnection: 'Test connection',
  testingConnection: 'Testing…',
  verified: 'Connection verified.',
  verifyBeforeSave: 'Test the connection before saving.',
  save: 'Save',
  saving: 'Saving…',
  saved: 'Saved.',
  deleteDataSource: 'Delete',
  deleteTitle: 'Delete data source?',
  deleteDescription: (name: string) => `“${name}” will be deleted. This cannot be undone.`,
  deleteConfirm: 'Delete data source',
  deleting: 'Deleting…',
  deleteFailed: 'The data source could not be deleted.',
  deleted: 'The data source was deleted.',
};

/**
 * `DataSourceForm`'s dialect, connection-string and role-change strings. Apart from the rest so that a page
 * with only `MemberCard` or `OrgPicker` does not carry them: the form adds them under the
 * provider's messages itself.
 */
export const formMessages = {
  dialect: 'Database type',
  dialectPostgres: 'PostgreSQL',
  dialectMysql: 'MySQL or MariaDB',
  connectionString: 'Connection string',
  connectionStringHint:
    'Paste a postgres:// or mysql:// URL to fill in the fields below; its password goes to Password.',
  connectionStringFill: 'Fill in',
  connectionStringFilled: 'Filled in from the connection string.',
  connectionStringScheme: 'Use a URL that starts with postgres://, postgresql:// or mysql://.',
  connectionStringInvalid:
    'This connection string could not be read. Expected scheme://user:password@host:port/database.',
  databaseNameHintMysql: 'Leave empty to connect without a default database.',
  verifyNotAvailable:
    "Testing the connection isn't available here: this page's server does not pass it on to the bridge. A data source is saved only after a test, so this form is read-only.",
  verifyNotAvailableSave:
    "Testing the connection isn't available here: this page's server does not pass it on to the bridge. Save stores the settings without testing them.",
  saveNotAvailable:
    "Data sources can't be added or changed here: this page's server does not pass that on to the bridge.",
  readOnlyRoleChanged:
    'Your role in this organization no longer lets you save data sources (only admins can). What you entered is kept below, read-only.',
};

const merge = <A, B>(a: A, b: B): A & B => ({ ...a, ...b });

/** Every user-visible string of the kit. Override any of them through `BridgeProvider`. */
export const defaultMessages = /* @__PURE__ */ merge(coreMessages, formMessages);

export type Messages = typeof defaultMessages;

/**
 * The strings a `BridgeProvider` holds (`useBridge().messages`): every core string, and
 * `DataSourceForm`'s own (`formMessages`: dialect, connection string) only where the provider's
 * `messages` override them. The form adds its defaults under them itself (`withFormMessages`).
 */
export type ProviderMessages = Omit<Messages, keyof typeof formMessages> &
  Partial<Pick<Messages, keyof typeof formMessages>>;

/** The provider's strings: the core ones with the overrides over them. */
export const providerMessages = (overrides?: Partial<Messages>): ProviderMessages => ({
  ...coreMessages,
  ...overrides,
});

/** The provider's strings with the form's defaults under them. */
export const withFormMessages = (messages: ProviderMessages): Messages => ({
  ...formMessages,
  ...messages,
});
