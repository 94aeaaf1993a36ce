const absolute = /* @__PURE__ */ new Intl.DateTimeFormat('en-US', {
  dateStyle: 'medium',
  timeStyle: 'long',
  timeZone: 'UTC',
});
const relative = /* @__PURE__ */ new Intl.RelativeTimeFormat('en-US', { numeric: 'auto' });
const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

/** Strings of the bridge's own full-embed page (the kit's components bring theirs). */
export const embedMessages = {
  /** "5 minutes ago", "yesterday"; "just now" under a minute. */
  relativeTime: (iso: string, now: number) => {
    const ms = Date.parse(iso) - now;
    for (const [unit, size] of UNITS) {
      if (Math.abs(ms) >= size) return relative.format(Math.round(ms / size), unit);
    }
    return 'just now';
  },
  absoluteTime: (iso: string) => absolute.format(new Date(iso)),
  health: 'Health',
  healthy: 'Healthy',
  unhealthy: 'Unhealthy',
  healthUnknown: 'Not checked yet',
  checkedAt: (when: string) => `Last checked ${when}`,
  lastHealthyAt: (when: string) => `Last healthy ${when}`,
  sync: 'Schema sync',
  synced: 'Synced',
  syncing: 'Syncing',
  syncFailed: 'Sync failed',
  notSynced: 'Not synced yet',
  syncStartedAt: (when: string) => `Started ${when}`,
  syncAttemptAt: (when: string) => `Last attempt ${when}`,
  lastSyncedAt: (when: string) => `Last synced ${when}`,
  syncNow: 'Sync now',
  syncNowNamed: (name: string) => `Sync now ${name}`,
  syncNotStarted: 'The sync could not be started.',
  tables: 'Tables',
  tablesOf: (name: string) => `Tables of ${name}`,
  tablesLoading: 'Loading tables…',
  tablesEmpty: 'The last sync found no tables.',
  tablesLoadFailed: 'The tables could not be loaded.',
  tablesSummary: (count: number, when: string) =>
    `${count} ${count === 1 ? 'table' : 'tables'}, read ${when}`,
  tablesTruncated: 'The database has more tables than the bridge keeps; the rest are left out.',
  view: 'view',
  columns: (count: number) => `${count} ${count === 1 ? 'column' : 'columns'}`,
  dataSources: 'Data sources',
  dataSourcesLoading: 'Loading data sources…',
  dataSourcesEmpty: 'No data sources yet.',
  dataSourcesLoadFailed: 'The data sources could not be loaded.',
  addDataSource: 'Add data source',
  edit: 'Edit',
  editNamed: (name: string) => `Edit ${name}`,
  editTitle: (name: string) => `Edit “${name}”`,
  closeEditor: 'Close',
  deletedNamed: (name: string) => `“${name}” was deleted.`,
  signedInAs: 'Signed in as',
  signingIn: 'Signing in…',
  signInFailed: 'Could not sign in',
  signInFailedDetail:
    'This sign-in link was already used or has expired. Open this page again from the app.',
  sessionEnded: 'Your session has ended',
  sessionExpiredDetail:
    'You have been signed in for as long as allowed. Open this page again from the app to continue.',
  sessionRevokedDetail:
    'You were signed out, or your access changed. Open this page again from the app to continue.',
};

export type EmbedMessages = typeof embedMessages;
