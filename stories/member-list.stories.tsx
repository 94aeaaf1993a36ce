import { MemberList } from '@bridgekit/react';
import type { Meta, StoryObj } from '@storybook/react-vite';
import { expect } from 'storybook/test';
import type { BridgeParameters } from '../.storybook/preview';
import { ada, grace, ORG_ID } from '../test/support/fixtures';
import { type FakeRequest, fail, ok, paginate } from './fake-bridge';
import { manyMembers } from './lifecycle-data';

const MEMBERS = manyMembers(0);
const LONG = manyMembers(130);
const byId = ({ params, body }: FakeRequest) => {
  const found = LONG.find((m) => m.id === params.id) ?? grace;
  return ok({ ...found, ...(body as object) });
};

/**
 * The organization's members, a page at a time. An ADMIN changes roles, removes members after a
 * confirmation and adds members by email; the only ADMIN's row says why it can be neither
 * demoted nor removed. A MEMBER sees the list read-only.
 *
 * ```tsx
 * <BridgeProvider baseUrl={bridgeUrl} getSessionToken={getSessionToken}>
 *   <MemberList orgId={orgId} onMembersChange={({ type, member }) => audit(type, member)} />
 * </BridgeProvider>
 * ```
 */
const meta = {
  title: 'Components/MemberList',
  component: MemberList,
  tags: ['autodocs'],
  args: { orgId: ORG_ID },
  parameters: {
    bridge: {
      listMembers: paginate(MEMBERS),
      updateMember: byId,
      removeMember: byId,
      addMember: ({ body }) =>
        ok(
          {
            ...grace,
            id: 'mem_000000000999',
            user: { ...grace.user, fullName: null, email: (body as { email: string }).email },
            role: (body as { role: 'ADMIN' | 'MEMBER' }).role,
          },
          201,
        ),
    },
  } satisfies BridgeParameters,
} satisfies Meta<typeof MemberList>;

export default meta;
type Story = StoryObj<typeof meta>;

/** An ADMIN: role menus, Remove, Add member; Ada is the only ADMIN and her row says so. */
export const Admin: Story = {
  play: async ({ canvas }) => {
    await canvas.findByText(
      'The only admin: make another member an admin before changing this role or removing them.',
    );
  },
};

/** A MEMBER: the list read-only, with the reason. */
export const Member: Story = {
  parameters: { role: 'MEMBER' } satisfies BridgeParameters,
  play: async ({ canvas }) => {
    await canvas.findByText('Only admins of this organization can change its members.');
    await expect(canvas.queryByRole('combobox')).toBeNull();
  },
};

export const Loading: Story = {
  parameters: { bridge: { listMembers: 'pending' } } satisfies BridgeParameters,
};

export const Empty: Story = {
  parameters: { bridge: { listMembers: paginate([]) } } satisfies BridgeParameters,
};

export const LoadError: Story = {
  parameters: {
    bridge: { listMembers: fail('ServiceUnavailable', 'The store is not answering. Try again.') },
  } satisfies BridgeParameters,
};

/** 132 members, 50 a page, "Load more" below. */
export const LongList: Story = {
  parameters: { bridge: { listMembers: paginate(LONG) } } satisfies BridgeParameters,
};

/** Remove Grace: the confirmation dialog. */
export const RemoveConfirmation: Story = {
  play: async ({ canvas, userEvent }) => {
    await userEvent.click(
      await canvas.findByRole('button', { name: `Remove ${grace.user.fullName}` }),
    );
  },
};

/** Grace made an ADMIN: the change is announced, and Ada is no longer the only ADMIN. */
export const RoleChanged: Story = {
  play: async ({ canvas, userEvent }) => {
    await userEvent.selectOptions(
      await canvas.findByRole('combobox', { name: `Role of ${grace.user.fullName}` }),
      'ADMIN',
    );
    await canvas.findByText(`${grace.user.fullName} is now Admin.`);
    const adaRole = canvas.getByRole('combobox', { name: `Role of ${ada.user.fullName}` });
    await expect(adaRole.hasAttribute('disabled')).toBe(false);
  },
};

/** Add member with an email the bridge refuses: the error on the field. */
export const AddRefused: Story = {
  play: async ({ canvas, userEvent }) => {
    await userEvent.type(await canvas.findByLabelText('Email'), 'not-an-email');
    await userEvent.click(canvas.getByRole('button', { name: 'Add member' }));
    await canvas.findByText('Must be an email address');
  },
};

export const Narrow: Story = {
  parameters: { width: 320 } satisfies BridgeParameters,
};

export const Dark: Story = {
  parameters: { theme: 'dark' } satisfies BridgeParameters,
};
