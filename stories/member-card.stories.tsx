import { MemberCard } from '@bridgekit/react';
import type { Meta, StoryObj } from '@storybook/react-vite';
import type { BridgeParameters } from '../.storybook/preview';
import { ada, grace, ORG_ID } from '../test/support/fixtures';
import { fail, ok } from './fake-bridge';

const meta = {
  title: 'Components/MemberCard',
  component: MemberCard,
  args: { orgId: ORG_ID, memberId: ada.id },
  parameters: { bridge: { getMember: ok(ada) } } satisfies BridgeParameters,
} satisfies Meta<typeof MemberCard>;

export default meta;
type Story = StoryObj<typeof meta>;

/** Loaded by `orgId` + `memberId`: admin, verified, with a photo. */
export const Loaded: Story = {};

export const Loading: Story = {
  parameters: { bridge: { getMember: 'pending' } } satisfies BridgeParameters,
};

export const NotFound: Story = {
  parameters: {
    bridge: { getMember: fail('NotFound', 'Member not found', { code: 'member_not_found' }) },
  } satisfies BridgeParameters,
};

export const LoadError: Story = {
  parameters: {
    bridge: {
      getMember: fail(
        'InternalError',
        'Something went wrong; quote the request id when reporting it',
      ),
    },
  } satisfies BridgeParameters,
};

/** Given a `member`: no request. Member role, unverified, no title, broken photo → initials. */
export const GivenMember: Story = {
  render: () => <MemberCard member={grace} />,
};

export const Dark: Story = {
  parameters: { theme: 'dark' } satisfies BridgeParameters,
};

export const Narrow: Story = {
  render: () => <MemberCard member={grace} />,
  parameters: { width: 280 } satisfies BridgeParameters,
};

export const Unstyled: Story = {
  args: { unstyled: true },
};
