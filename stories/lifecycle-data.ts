import type { CatalogTable, DataSource, Member } from '@bridgekit/contract';
import { ada, dataSource, grace, member } from '../test/support/fixtures';
import type { Handler } from './fake-bridge';

// Records the lifecycle stories share: data sources in every health and sync state, a catalog,
// and members.

export const NOW = Date.now();
export const ago = (minutes: number) => new Date(NOW - minutes * 60_000).toISOString();

export const healthy = dataSource({
  id: 'ds_000000000011',
  displayName: 'Production warehouse',
  host: 'db.acme.example',
  lastHealthStatus: 'HEALTHY',
  lastHealthCheckAttemptAt: ago(4),
  lastHealthyAt: ago(4),
  lastSyncStatus: 'SUCCEEDED',
  lastSyncAttemptAt: ago(75),
  lastSuccessfulSyncAt: ago(75),
  hasCompletedFirstSync: true,
});
export const unhealthy = dataSource({
  id: 'ds_000000000012',
  displayName: 'Orders (MySQL)',
  dialect: 'MYSQL',
  host: 'mysql.acme.example',
  port: 3306,
  databaseName: 'orders',
  lastHealthStatus: 'UNHEALTHY',
  lastHealthCheckAttemptAt: ago(2),
  lastHealthyAt: ago(60 * 30),
  healthErrorMessage:
    'The connection timed out. If the database has a firewall, allow 203.0.113.7 in the database firewall.',
  lastSyncStatus: 'FAILED',
  lastSyncAttemptAt: ago(20),
  lastSuccessfulSyncAt: ago(60 * 31),
  hasCompletedFirstSync: true,
  syncErrorMessage: 'The database rejected the username or password.',
});
export const syncing = dataSource({
  id: 'ds_000000000013',
  displayName: 'Replica',
  host: '10.0.4.12',
  lastHealthStatus: 'HEALTHY',
  lastHealthCheckAttemptAt: ago(1),
  lastHealthyAt: ago(1),
  lastSyncStatus: 'SYNCING',
  lastSyncAttemptAt: ago(0),
});
export const fresh = dataSource({
  id: 'ds_000000000014',
  displayName: 'Just added',
  host: 'new.example',
});
export const ALL = [healthy, unhealthy, syncing, fresh];

export const TABLES: CatalogTable[] = Array.from({ length: 64 }, (_, i) => ({
  schema: i < 40 ? 'public' : 'reporting',
  name: ['orders', 'customers', 'invoices', 'events'][i % 4]! + (i < 4 ? '' : `_${i}`),
  kind: i % 9 === 8 ? 'VIEW' : 'TABLE',
  columns: Array.from({ length: 2 + (i % 7) }, (_, c) => ({
    name: `column_${c}`,
    type: 'text',
    nullable: c > 0,
  })),
}));

/** `GET …/schema` over `tables`, a page at a time (the cursor is the offset). */
export const schema =
  (truncated = false, tables = TABLES, readAt: string | null = ago(75)): Handler =>
  ({ query, params }) => {
    const limit = Number(query.get('limit') ?? 50);
    const start = Number(query.get('cursor') ?? 0);
    const next = start + limit < tables.length ? String(start + limit) : null;
    return {
      status: 200,
      body: {
        data: {
          dataSourceId: params.id,
          readAt,
          truncated,
          tableCount: tables.length,
          tables: tables.slice(start, start + limit),
        },
        pagination: { hasMore: next !== null, nextCursor: next },
      },
    };
  };

/** `count` tables over a few schemas, 2 to 8 columns each. */
export const manyTables = (count: number): CatalogTable[] =>
  Array.from({ length: count }, (_, i) => ({
    schema: ['public', 'reporting', 'staging'][i % 3]!,
    name: `table_${String(i).padStart(5, '0')}`,
    kind: i % 11 === 10 ? 'VIEW' : 'TABLE',
    columns: Array.from({ length: 2 + (i % 7) }, (_, c) => ({
      name: c === 0 ? 'id' : `column_${c}`,
      type: c === 0 ? 'bigint' : 'character varying(80)',
      nullable: c > 0,
    })),
  }));

/** `count` data sources, healthy and synced, for long lists. */
export const manySources = (count: number): DataSource[] =>
  Array.from({ length: count }, (_, i) =>
    dataSource({
      ...healthy,
      id: `ds_${String(100 + i).padStart(12, '0')}`,
      displayName: `Regional warehouse ${i + 1}`,
      host: `db-${i + 1}.acme.example`,
    }),
  );

/** Ada (ADMIN), Grace (MEMBER) and `extra` more members. */
export const manyMembers = (extra: number): Member[] => [
  ada,
  grace,
  ...Array.from({ length: extra }, (_, i) =>
    member({
      id: `mem_${String(100 + i).padStart(12, '0')}`,
      role: i % 5 === 0 ? 'ADMIN' : 'MEMBER',
      organizationId: ada.organizationId,
      user: {
        id: `usr_${String(100 + i).padStart(12, '0')}`,
        fullName: `Analyst ${i + 1}`,
        email: `analyst.${i + 1}@acme.example`,
        avatarUrl: null,
      },
    }),
  ),
];
