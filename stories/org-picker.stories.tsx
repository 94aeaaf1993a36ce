import { OrgPicker } from '@bridgekit/react';
import type { Meta, StoryObj } from '@storybook/react-vite';
import type { BridgeParameters } from '../.storybook/preview';
import { organizations } from '../test/support/fixtures';
import { fail, ok, paginate } from './fake-bridge';

const few = organizations.slice(0, 6);

const meta = {
  title: 'Components/OrgPicker',
  component: OrgPicker,
  parameters: { bridge: { listOrganizations: paginate(few) } } satisfies BridgeParameters,
} satisfies Meta<typeof OrgPicker>;

export default meta;
type Story = StoryObj<typeof meta>;

const open: Story['play'] = async ({ canvas, userEvent }) => {
  await userEvent.click(canvas.getByRole('button'));
};

export const Closed: Story = {};

/** Trigger shows the current organization, resolved with `getOrganization`. */
export const WithValue: Story = {
  args: { defaultValue: few[2]!.id },
  parameters: {
    bridge: { listOrganizations: paginate(few), getOrganization: ok(few[2]) },
  } satisfies BridgeParameters,
};

export const Open: Story = { play: open };

export const Loading: Story = {
  parameters: { bridge: { listOrganizations: 'pending' } } satisfies BridgeParameters,
  play: open,
};

export const Empty: Story = {
  parameters: { bridge: { listOrganizations: paginate([]) } } satisfies BridgeParameters,
  play: open,
};

export const LoadError: Story = {
  parameters: {
    bridge: {
      listOrganizations: fail(
        'InternalError',
        'Something went wrong; quote the request id when reporting it',
      ),
    },
  } satisfies BridgeParameters,
  play: open,
};

/** 120 organizations in pages of 25: scroll or "Load more" fetches the next page. */
export const LongList: Story = {
  args: { pageSize: 25 },
  parameters: { bridge: { listOrganizations: paginate(organizations) } } satisfies BridgeParameters,
  play: open,
};

export const NoSearchMatch: Story = {
  play: async (context) => {
    await open(context);
    const { userEvent, canvasElement } = context;
    const search = await waitForSearch(canvasElement.ownerDocument);
    await userEvent.type(search, 'zebra');
  },
};

export const Dark: Story = {
  parameters: { theme: 'dark' } satisfies BridgeParameters,
  play: open,
};

export const Narrow: Story = {
  args: { defaultValue: organizations[4]!.id },
  parameters: {
    width: 240,
    bridge: { listOrganizations: paginate(few), getOrganization: ok(organizations[4]) },
  } satisfies BridgeParameters,
};

async function waitForSearch(document: Document): Promise<HTMLElement> {
  for (let i = 0; i < 50; i++) {
    const search = document.querySelector<HTMLElement>('input[type="search"]');
    if (search) return search;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('The search box did not appear');
}
