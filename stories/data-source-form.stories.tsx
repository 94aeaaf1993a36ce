import { DataSourceForm } from '@bridgekit/react';
import type { Meta, StoryObj } from '@storybook/react-vite';
import type { BridgeParameters } from '../.storybook/preview';
import { ORG_ID, tunnelled, warehouse } from '../test/support/fixtures';
import { fail, ok } from './fake-bridge';

const verified = ok({ success: true });

const meta = {
  title: 'Components/DataSourceForm',
  component: DataSourceForm,
  args: { orgId: ORG_ID },
  parameters: {
    bridge: {
      verifyDataSource: verified,
      createDataSource: ok(warehouse, 201),
      getDataSource: ok(warehouse),
      updateDataSource: ok(warehouse),
      deleteDataSource: ok(warehouse),
    },
  } satisfies BridgeParameters,
} satisfies Meta<typeof DataSourceForm>;

export default meta;
type Story = StoryObj<typeof meta>;

const fill: Story['play'] = async ({ canvas, userEvent }) => {
  await userEvent.type(canvas.getByLabelText('Display name'), 'Production warehouse');
  await userEvent.type(canvas.getByLabelText('Host'), 'db.acme.example');
  await userEvent.type(canvas.getByLabelText('Username'), 'reporting');
  await userEvent.type(canvas.getByLabelText('Password'), 'not-the-password');
};

const testConnection: Story['play'] = async ({ canvas, userEvent }) => {
  await userEvent.click(canvas.getByRole('button', { name: 'Test connection' }));
};

export const Create: Story = {};

/** Test connection with empty fields: checked before any request. */
export const RequiredFields: Story = { play: testConnection };

/** The bridge refused the credentials: messages on Username and Password, summary on top. */
export const FieldErrors: Story = {
  parameters: {
    bridge: {
      verifyDataSource: fail(
        'VerificationFailed',
        'Could not connect: password authentication failed.',
        {
          username: 'Authentication failed for this user.',
          password: 'Authentication failed for this user.',
        },
      ),
    },
  } satisfies BridgeParameters,
  play: async (context) => {
    await fill(context);
    await testConnection(context);
    await context.canvas.findByRole('alert');
  },
};

/** Timed out: the message names the outbound address to allow. */
export const Timeout: Story = {
  parameters: {
    bridge: {
      verifyDataSource: fail('VerificationFailed', 'Could not connect: the connection timed out.', {
        host: 'Timed out. Allow 203.0.113.7 in the database firewall.',
      }),
    },
  } satisfies BridgeParameters,
  play: async (context) => {
    await fill(context);
    await testConnection(context);
    await context.canvas.findByRole('alert');
  },
};

/** Verified: Save is enabled. */
export const Verified: Story = {
  play: async (context) => {
    await fill(context);
    await testConnection(context);
    await context.canvas.findByText('Connection verified.');
  },
};

export const WithSshTunnel: Story = {
  play: async (context) => {
    await fill(context);
    await context.userEvent.click(context.canvas.getByLabelText('Connect through an SSH tunnel'));
    await context.userEvent.click(context.canvas.getByRole('radio', { name: 'Private key' }));
  },
};

/** Edit mode: stored secrets show as Stored with Replace and Remove. */
export const EditWithStoredSecrets: Story = {
  args: { dataSourceId: tunnelled.id },
  parameters: {
    bridge: {
      getDataSource: ok(tunnelled),
      verifyDataSource: verified,
      updateDataSource: ok(tunnelled),
    },
  } satisfies BridgeParameters,
};

export const EditRemovingPassword: Story = {
  args: { dataSource: warehouse },
  play: async ({ canvas, userEvent }) => {
    await userEvent.click(canvas.getByRole('button', { name: 'Remove Password' }));
  },
};

export const EditLoading: Story = {
  args: { dataSourceId: warehouse.id },
  parameters: { bridge: { getDataSource: 'pending' } } satisfies BridgeParameters,
};

export const EditNotFound: Story = {
  args: { dataSourceId: 'ds_000000000404' },
  parameters: {
    bridge: { getDataSource: fail('NotFound', 'Data source not found.') },
  } satisfies BridgeParameters,
};

export const DeleteDialogOpen: Story = {
  args: { dataSource: warehouse },
  play: async ({ canvas, userEvent }) => {
    await userEvent.click(canvas.getByRole('button', { name: 'Delete' }));
  },
};

export const Dark: Story = {
  parameters: { theme: 'dark' } satisfies BridgeParameters,
  play: async (context) => {
    await fill(context);
    await testConnection(context);
  },
};

export const DarkEdit: Story = {
  args: { dataSource: tunnelled },
  parameters: { theme: 'dark' } satisfies BridgeParameters,
};

export const Narrow: Story = {
  args: { dataSource: tunnelled },
  parameters: { width: 320 } satisfies BridgeParameters,
};

/** Without verification: Save is enabled at once. */
export const WithoutVerify: Story = {
  args: { requireVerify: false },
};
