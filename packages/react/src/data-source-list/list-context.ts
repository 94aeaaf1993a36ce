import type { BridgeContextValue } from '../provider/bridge-provider';
import type { CoreMessages } from '../provider/messages';
import type { DataSourceListMessages } from './data-source-list-messages';

/** What `DataSourceList` gives its parts: the provider's value with its strings filled in. */
export type ListContext = BridgeContextValue & {
  messages: CoreMessages & DataSourceListMessages;
};

/** The strings `StatusBadge` and the badge states read. */
export type StatusMessages = Pick<
  DataSourceListMessages,
  | 'relativeTime'
  | 'absoluteTime'
  | 'healthy'
  | 'unhealthy'
  | 'healthUnknown'
  | 'checking'
  | 'checkedAt'
  | 'lastHealthyAt'
  | 'synced'
  | 'syncing'
  | 'syncFailed'
  | 'notSynced'
  | 'syncStartedAt'
  | 'syncAttemptAt'
  | 'lastSyncedAt'
>;
