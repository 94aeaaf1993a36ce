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
  await userEvent.type(await canvas.findByLabelText('Display name'), 'Production warehouse');
  await userEvent.type(await canvas.findByLabelText('Host'), 'db.acme.example');
  await userEvent.type(await canvas.findByLabelText('Username'), 'reporting');
  await userEvent.type(await canvas.findByLabelText('Password'), 'not-the-password');
};

const testConnection: Story['play'] = async ({ canvas, userEvent }) => {
  await userEvent.click(await canvas.findByRole('button', { name: 'Test connection' }));
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
        'The database rejected the username or password.',
        {
          code: 'auth_failed',
          fields: {
            username: ['auth_failed', 'Authentication failed.'],
            password: ['auth_failed', 'Authentication failed.'],
          },
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
      verifyDataSource: fail(
        'VerificationFailed',
        'The connection to the database timed out. If the database has a firewall, allow 203.0.113.7 in the database firewall.',
        {
          code: 'timeout',
          fields: {
            host: [
              'timeout',
              'The connection timed out. If the database has a firewall, allow 203.0.113.7 in the database firewall.',
            ],
          },
          params: { serviceIp: '203.0.113.7' },
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
    await context.userEvent.click(
      await context.canvas.findByLabelText('Connect through an SSH tunnel'),
    );
    await context.userEvent.click(
      await context.canvas.findByRole('radio', { name: 'Private key' }),
    );
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
    await userEvent.click(await canvas.findByRole('button', { name: 'Remove Password' }));
  },
};

/** A new host while the password is stored: the form warns that saving removes it. */
export const EditMovingHost: Story = {
  args: { dataSource: warehouse },
  play: async ({ canvas, userEvent }) => {
    const host = await canvas.findByLabelText('Host');
    await userEvent.clear(host);
    await userEvent.type(host, 'db2.acme.example');
  },
};

export const EditLoading: Story = {
  args: { dataSourceId: warehouse.id },
  parameters: { bridge: { getDataSource: 'pending' } } satisfies BridgeParameters,
};

export const EditNotFound: Story = {
  args: { dataSourceId: 'ds_000000000404' },
  parameters: {
    bridge: {
      getDataSource: fail('NotFound', 'Data source not found', { code: 'data_source_not_found' }),
    },
  } satisfies BridgeParameters,
};

export const DeleteDialogOpen: Story = {
  args: { dataSource: warehouse },
  play: async ({ canvas, userEvent }) => {
    await userEvent.click(await canvas.findByRole('button', { name: 'Delete' }));
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

/** A MEMBER's session: the record read-only, no Test, Save or Delete, and why. */
export const MemberReadOnly: Story = {
  args: { dataSource: tunnelled },
  parameters: { role: 'MEMBER' } satisfies BridgeParameters,
};

/** A MEMBER opening the form to add a data source. */
export const MemberCannotCreate: Story = {
  parameters: { role: 'MEMBER' } satisfies BridgeParameters,
};

/** `variant="plain"` inside a host panel that already draws the card. */
export const PlainInAPanel: Story = {
  args: { dataSource: warehouse, variant: 'plain' },
  decorators: [
    (Story) => (
      <section
        style={{
          maxWidth: 640,
          padding: 20,
          border: '1px solid light-dark(#d0d7de, #30363d)',
          borderRadius: 12,
        }}
      >
        <h2 style={{ margin: '0 0 16px', font: '600 1.25rem system-ui, sans-serif' }}>
          Edit data source
        </h2>
        <Story />
      </section>
    ),
  ],
};

/** MySQL chosen: the port follows the dialect (3306) until the user types one. */
export const DialectMysql: Story = {
  play: async ({ canvas, userEvent }) => {
    await userEvent.click(await canvas.findByLabelText('MySQL or MariaDB'));
  },
};

/** A pasted connection string filled the fields; its password went to Password only. */
export const FromConnectionString: Story = {
  play: async ({ canvas, userEvent }) => {
    await userEvent.click(await canvas.findByLabelText('Connection string'));
    await userEvent.paste('mysql://reporting:not-the-password@db.acme.example:3307/shop?ssl=true');
    await canvas.findByText('Filled in from the connection string.');
  },
};

/** A string the form cannot read: a field error on the connection string, fields untouched. */
export const ConnectionStringError: Story = {
  play: async ({ canvas, userEvent }) => {
    await userEvent.click(await canvas.findByLabelText('Connection string'));
    await userEvent.paste('postgres://reporting@db.acme.example:99999/analytics');
    await canvas.findByText(/could not be read/);
  },
};

/** The same, dark. */
export const ConnectionStringErrorDark: Story = {
  ...ConnectionStringError,
  parameters: { theme: 'dark' } satisfies BridgeParameters,
};
