import { merge } from '../internal/merge';
import { timeMessages } from '../internal/time-messages';

/** `SchemaBrowser`'s strings: it adds them under the provider's messages itself. */
export const schemaBrowserMessages = /* @__PURE__ */ merge(timeMessages, {
  schemaLabel: (name: string) => `Tables of ${name}`,
  schemaLabelPlain: 'Tables',
  tablesLoading: 'Loading tables…',
  tablesLoadingCount: (loaded: number, total: number) => `Loaded ${loaded} of ${total} tables…`,
  tablesEmpty: 'The last sync found no tables.',
  tablesNotSynced: 'Not synced yet: the tables show once a sync has succeeded.',
  tablesLoadFailed: 'The tables could not be loaded.',
  /** "64 tables, read 2 hours ago"; `when` is null before the first sync. */
  tablesSummary: (count: number, when: string | null) =>
    `${count} ${count === 1 ? 'table' : 'tables'}${when ? `, read ${when}` : ''}`,
  tablesTruncated: 'The database has more tables than the bridge keeps; the rest are left out.',
  schemaSearch: 'Search tables and columns',
  schemaSearchPlaceholder: 'Search tables and columns',
  schemaNoMatch: (query: string) => `No table or column matches “${query}”.`,
  schemaMatches: (count: number) => `${count} ${count === 1 ? 'table matches' : 'tables match'}`,
  view: 'view',
  nullable: 'nullable',
  columns: (count: number) => `${count} ${count === 1 ? 'column' : 'columns'}`,
});

export type SchemaBrowserMessages = typeof schemaBrowserMessages;
