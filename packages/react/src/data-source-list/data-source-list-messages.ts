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

/** `DataSourceList`'s strings (and `SchemaBrowser`'s times): added under the provider's own. */
export const dataSourceListMessages = {
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
  checkNow: 'Check now',
  checkNowNamed: (name: string) => `Check now ${name}`,
  checkNotRun: 'The health check could not be run.',
  tables: 'Tables',
  tablesOf: (name: string) => `Tables of ${name}`,
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
};

export type DataSourceListMessages = typeof dataSourceListMessages;
