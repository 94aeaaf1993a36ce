import type { CatalogTable, DataSource } from '@bridgekit/contract';
import type { Meta, StoryObj } from '@storybook/react-vite';
import { expect, waitFor } from 'storybook/test';
import type { BridgeParameters } from '../.storybook/preview';
import { EmbedPage } from '../packages/react/src/embed/embed-page';
import '../packages/react/src/embed/embed.css';
import { ada, dataSource, grace, ORG_ID } from '../test/support/fixtures';
import { type Handler, ok, paginate } from './fake-bridge';

// The bridge's full-embed page (not part of the package's exports): its data source list with
// each source's health, schema sync and synced tables.

const NOW = Date.now();
const ago = (minutes: number) => new Date(NOW - minutes * 60_000).toISOString();

const healthy = dataSource({
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
const unhealthy = dataSource({
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
const syncing = dataSource({
  id: 'ds_000000000013',
  displayName: 'Replica',
  host: '10.0.4.12',
  lastHealthStatus: 'HEALTHY',
  lastHealthCheckAttemptAt: ago(1),
  lastHealthyAt: ago(1),
  lastSyncStatus: 'SYNCING',
  lastSyncAttemptAt: ago(0),
});
const fresh = dataSource({ id: 'ds_000000000014', displayName: 'Just added', host: 'new.example' });
const ALL = [healthy, unhealthy, syncing, fresh];

const TABLES: CatalogTable[] = Array.from({ length: 64 }, (_, i) => ({
  schema: i < 40 ? 'public' : 'reporting',
  name: ['orders', 'customers', 'invoices', 'events'][i % 4]! + (i < 4 ? '' : `_${i}`),
  kind: i % 9 === 8 ? 'VIEW' : 'TABLE',
  columns: Array.from({ length: 2 + (i % 7) }, (_, c) => ({
    name: `column_${c}`,
    type: 'text',
    nullable: c > 0,
  })),
}));

const schema =
  (truncated = false): Handler =>
  ({ query, params }) => {
    const limit = Number(query.get('limit') ?? 50);
    const start = Number(query.get('cursor') ?? 0);
    const next = start + limit < TABLES.length ? String(start + limit) : null;
    return {
      status: 200,
      body: {
        data: {
          dataSourceId: params.id,
          readAt: ago(75),
          truncated,
          tableCount: TABLES.length,
          tables: TABLES.slice(start, start + limit),
        },
        pagination: { hasMore: next !== null, nextCursor: next },
      },
    };
  };

const byId =
  (records: DataSource[]): Handler =>
  ({ params }) =>
    ok(records.find((record) => record.id === params.id) ?? records[0]);

const meta = {
  title: 'Embed page/Data sources',
  component: EmbedPage,
  args: { orgId: ORG_ID, memberId: ada.id, orgName: 'Acme', theme: 'light', hideOrgName: false },
  parameters: {
    bridge: {
      getMember: ok(ada),
      listDataSources: paginate(ALL),
      getDataSource: byId(ALL),
      getDataSourceSchema: schema(),
      syncDataSource: ok(healthy, 202),
    },
  } satisfies BridgeParameters,
  render: (args, { globals, parameters }) => {
    const theme = (parameters as BridgeParameters).theme;
    const scheme = typeof theme === 'string' ? theme : (globals.scheme ?? 'light');
    return <EmbedPage {...args} theme={scheme} />;
  },
} satisfies Meta<typeof EmbedPage>;

export default meta;
type Story = StoryObj<typeof meta>;

/** Every badge: Healthy / Unhealthy / Not checked yet; Synced / Sync failed / Syncing / Not synced yet. */
export const AllStates: Story = {
  play: async ({ canvas }) => {
    await canvas.findByText('Just added');
  },
};

export const AllStatesDark: Story = {
  ...AllStates,
  parameters: { theme: 'dark' } satisfies BridgeParameters,
};

/** The failure reason of an unhealthy source, shown on focus (and on hover). */
export const FailureReason: Story = {
  play: async ({ canvas, userEvent }) => {
    const badge = await canvas.findByRole('button', { name: /^Health: Unhealthy/ });
    await userEvent.click(badge);
  },
};

export const FailureReasonDark: Story = {
  ...FailureReason,
  parameters: { theme: 'dark' } satisfies BridgeParameters,
};

/** Sync now pressed; the bridge has not finished the sync yet. */
export const SyncNowInFlight: Story = {
  parameters: {
    bridge: {
      getMember: ok(ada),
      listDataSources: paginate(ALL),
      syncDataSource: 'pending',
      getDataSourceSchema: schema(),
    },
  } satisfies BridgeParameters,
  play: async ({ canvas, userEvent }) => {
    const button = await canvas.findByRole('button', { name: 'Sync now Production warehouse' });
    await userEvent.click(button);
    await waitFor(() => expect(button.getAttribute('aria-disabled')).toBe('true'));
  },
};

/** The synced tables of a source, first page open, "Load more" below. */
export const SchemaList: Story = {
  play: async ({ canvas, userEvent }) => {
    await userEvent.click(
      await canvas.findByRole('button', { name: 'Tables of Production warehouse' }),
    );
    await canvas.findByText('public.orders');
  },
};

export const SchemaListDark: Story = {
  ...SchemaList,
  parameters: { theme: 'dark' } satisfies BridgeParameters,
};

/** A catalog the bridge cut at its table limit says so. */
export const SchemaTruncated: Story = {
  parameters: {
    bridge: {
      getMember: ok(ada),
      listDataSources: paginate(ALL),
      getDataSourceSchema: schema(true),
    },
  } satisfies BridgeParameters,
  play: SchemaList.play,
};

/** A MEMBER sees the states and tables, without Sync now, Edit or Add. */
export const Member: Story = {
  args: { memberId: grace.id },
  parameters: {
    role: 'MEMBER',
    bridge: { getMember: ok(grace), listDataSources: paginate(ALL), getDataSourceSchema: schema() },
  } satisfies BridgeParameters,
  play: async ({ canvas }) => {
    await canvas.findByText('Just added');
  },
};
