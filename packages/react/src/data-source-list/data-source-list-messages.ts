import { merge } from '../internal/merge';
import { timeMessages } from '../internal/time-messages';

/** `DataSourceList`'s strings: it adds them under the provider's messages itself. */
export const dataSourceListMessages = /* @__PURE__ */ merge(timeMessages, {
  health: 'Health',
  healthy: 'Healthy',
  unhealthy: 'Unhealthy',
  healthUnknown: 'Not checked yet',
  checking: 'Checking',
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
});

export type DataSourceListMessages = typeof dataSourceListMessages;
