import type { DataSource } from '@bridgekit/contract';
import type { Meta, StoryObj } from '@storybook/react-vite';
import { expect, waitFor } from 'storybook/test';
import type { BridgeParameters } from '../.storybook/preview';
import { EmbedPage } from '../packages/react/src/embed/embed-page';
import '../packages/react/src/embed/embed.css';
import { ada, grace, ORG_ID } from '../test/support/fixtures';
import { type Handler, ok, paginate } from './fake-bridge';
import { ALL, healthy, schema } from './lifecycle-data';

// The bridge's full-embed page (not part of the package's exports): its data source list with
// each source's health, schema sync and synced tables.

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

/** The synced tables of a source: the SchemaBrowser tree. */
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
