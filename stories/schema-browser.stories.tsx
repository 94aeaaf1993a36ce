import { SchemaBrowser } from '@bridgekit/react';
import type { Meta, StoryObj } from '@storybook/react-vite';
import type { BridgeParameters } from '../.storybook/preview';
import { ORG_ID } from '../test/support/fixtures';
import { fail } from './fake-bridge';
import { healthy, manyTables, schema, TABLES } from './lifecycle-data';

const TEN_THOUSAND = manyTables(10_000);

/**
 * A data source's synced schemas, tables, views and columns: a searchable tree, virtualised so
 * that 10,000 tables scroll like 10. Keyboard: arrows, Right/Left to open and close, Home, End,
 * Page Up/Down.
 *
 * ```tsx
 * <SchemaBrowser
 *   orgId={orgId}
 *   dataSourceId={source.id}
 *   dataSourceName={source.displayName}
 *   version={source.lastSuccessfulSyncAt}
 * />
 * ```
 */
const meta = {
  title: 'Components/SchemaBrowser',
  component: SchemaBrowser,
  tags: ['autodocs'],
  args: { orgId: ORG_ID, dataSourceId: healthy.id, dataSourceName: healthy.displayName },
  parameters: { bridge: { getDataSourceSchema: schema() } } satisfies BridgeParameters,
} satisfies Meta<typeof SchemaBrowser>;

export default meta;
type Story = StoryObj<typeof meta>;

export const Ready: Story = {
  play: async ({ canvas }) => {
    await canvas.findByRole('tree');
  },
};

/** 10,000 tables: only the rows in view are drawn; pages load as you scroll. */
export const TenThousandTables: Story = {
  parameters: {
    bridge: { getDataSourceSchema: schema(false, TEN_THOUSAND) },
  } satisfies BridgeParameters,
  play: Ready.play,
};

/** A search by column name: tables found by a column open on it. */
export const Search: Story = {
  play: async ({ canvas, userEvent }) => {
    await userEvent.type(await canvas.findByRole('searchbox'), 'column_6');
    await canvas.findByText(/tables? match/);
  },
};

/** One table open, its columns below it. */
export const TableOpen: Story = {
  play: async ({ canvas, userEvent }) => {
    await userEvent.click(await canvas.findByRole('treeitem', { name: /^public\.orders\d/ }));
  },
};

export const Loading: Story = {
  parameters: { bridge: { getDataSourceSchema: 'pending' } } satisfies BridgeParameters,
};

export const NotSynced: Story = {
  parameters: {
    bridge: { getDataSourceSchema: schema(false, [], null) },
  } satisfies BridgeParameters,
};

export const Empty: Story = {
  parameters: { bridge: { getDataSourceSchema: schema(false, []) } } satisfies BridgeParameters,
};

/** The bridge cut the catalog at its table limit. */
export const Truncated: Story = {
  parameters: {
    bridge: { getDataSourceSchema: schema(true, TABLES) },
  } satisfies BridgeParameters,
};

export const LoadError: Story = {
  parameters: {
    bridge: {
      getDataSourceSchema: fail(
        'InternalError',
        'Something went wrong; quote the request id when reporting it',
      ),
    },
  } satisfies BridgeParameters,
};

export const Narrow: Story = {
  parameters: { width: 320 } satisfies BridgeParameters,
  play: Ready.play,
};

export const Dark: Story = {
  parameters: { theme: 'dark' } satisfies BridgeParameters,
  play: Ready.play,
};
