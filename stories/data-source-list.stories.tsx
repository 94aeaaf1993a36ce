import type { DataSource } from '@bridgekit/contract';
import { DataSourceList } from '@bridgekit/react';
import type { Meta, StoryObj } from '@storybook/react-vite';
import type { BridgeParameters } from '../.storybook/preview';
import { ORG_ID } from '../test/support/fixtures';
import { fail, type Handler, ok, paginate } from './fake-bridge';
import { ALL, fresh, healthy, manySources, schema } from './lifecycle-data';

const byId =
  (records: DataSource[]): Handler =>
  ({ params }) =>
    ok(records.find((record) => record.id === params.id) ?? records[0]);

/**
 * The organization's data sources: health (an unhealthy one's last error in words) and schema
 * sync, each one's tables in a `SchemaBrowser`; for an ADMIN, Add, Check now, Sync now and Edit
 * (`DataSourceForm` opens inside the row).
 *
 * ```tsx
 * <BridgeProvider baseUrl={bridgeUrl} getSessionToken={getSessionToken}>
 *   <DataSourceList orgId={orgId} onSaved={(record) => track('saved', record.id)} />
 * </BridgeProvider>
 * ```
 */
const meta = {
  title: 'Components/DataSourceList',
  component: DataSourceList,
  tags: ['autodocs'],
  args: { orgId: ORG_ID },
  parameters: {
    bridge: {
      listDataSources: paginate(ALL),
      getDataSource: byId(ALL),
      getDataSourceSchema: schema(),
      syncDataSource: ok(healthy, 202),
      // Checked when asked, as the bridge does: "just now" however long ago the module loaded.
      checkDataSourceHealth: () => {
        const now = new Date().toISOString();
        return ok({
          ...fresh,
          lastHealthStatus: 'HEALTHY',
          lastHealthCheckAttemptAt: now,
          lastHealthyAt: now,
        });
      },
    },
  } satisfies BridgeParameters,
} satisfies Meta<typeof DataSourceList>;

export default meta;
type Story = StoryObj<typeof meta>;

/** An ADMIN: every health and sync state, with Add, Check now, Sync now and Edit. */
export const Admin: Story = {
  play: async ({ canvas }) => {
    await canvas.findByText('Just added');
  },
};

/** A MEMBER: the states and tables, no actions. */
export const Member: Story = {
  parameters: { role: 'MEMBER' } satisfies BridgeParameters,
  play: Admin.play,
};

export const Loading: Story = {
  parameters: { bridge: { listDataSources: 'pending' } } satisfies BridgeParameters,
};

export const Empty: Story = {
  parameters: { bridge: { listDataSources: paginate([]) } } satisfies BridgeParameters,
};

export const LoadError: Story = {
  parameters: {
    bridge: {
      listDataSources: fail('ServiceUnavailable', 'The store is not answering. Try again.'),
    },
  } satisfies BridgeParameters,
};

/** 120 data sources, 50 a page. */
export const LongList: Story = {
  parameters: {
    bridge: { listDataSources: paginate(manySources(120)) },
  } satisfies BridgeParameters,
};

/** Check now on a source never checked: the badge turns Healthy. */
export const CheckNow: Story = {
  play: async ({ canvas, userEvent }) => {
    await userEvent.click(await canvas.findByRole('button', { name: 'Check now Just added' }));
    await canvas.findAllByRole('button', { name: /^Health: Healthy just now/ });
  },
};

/** Edit opens `DataSourceForm` inside the row. */
export const Editing: Story = {
  play: async ({ canvas, userEvent }) => {
    await userEvent.click(await canvas.findByRole('button', { name: 'Edit Production warehouse' }));
    await canvas.findByLabelText('Display name');
  },
};

/** A source's tables, open in the row. */
export const Tables: Story = {
  play: async ({ canvas, userEvent }) => {
    await userEvent.click(
      await canvas.findByRole('button', { name: 'Tables of Production warehouse' }),
    );
    await canvas.findByRole('tree');
  },
};

export const Narrow: Story = {
  parameters: { width: 320 } satisfies BridgeParameters,
  play: Admin.play,
};

export const Dark: Story = {
  parameters: { theme: 'dark' } satisfies BridgeParameters,
  play: Admin.play,
};
