import { OrganizationSettings } from '@bridgekit/react';
import type { Meta, StoryObj } from '@storybook/react-vite';
import { within } from 'storybook/test';
import type { BridgeParameters } from '../.storybook/preview';
import { ORG_ID, organizations } from '../test/support/fixtures';
import { type FakeRequest, fail, ok } from './fake-bridge';

const acme = {
  ...organizations[0]!,
  name: 'Acme Analytics',
  slug: 'acme-analytics',
  customAiContext: 'Revenue is reported in EUR; the fiscal year starts in April.',
  fullEmbedEnabled: true,
  embedAllowedOrigins: ['https://app.acme.example', 'https://*.tenants.acme.example'],
  previousJwtSecretExpiresAt: null,
};
const update = ({ body }: FakeRequest) => ok({ ...acme, ...(body as object) });
const rotated = {
  ...acme,
  jwtSecret: 'bk_jwt_4f9c2d7e1a8b3c6d5e0f9a2b7c4d1e8f',
  previousJwtSecretExpiresAt: '2026-12-01T10:30:00.000Z',
};

/**
 * An organization's settings: name, slug, AI context, full embed and its allowed origins, each
 * checked by the bridge's own rule as it is typed. With an API-key-backed client (the host's
 * backend proxy) an ADMIN changes all of them, rotates the SSO signing secret and deletes the
 * organization after typing its slug. In a signed-in session (`getSessionToken`) an ADMIN
 * changes the name and AI context; slug, full embed and origins show read-only, as the bridge
 * takes them from an API key only.
 *
 * ```tsx
 * <BridgeProvider client={proxyClient}>
 *   <OrganizationSettings orgId={orgId} onDeleted={() => navigate('/organizations')} />
 * </BridgeProvider>
 * ```
 */
const meta = {
  title: 'Components/OrganizationSettings',
  component: OrganizationSettings,
  tags: ['autodocs'],
  args: { orgId: ORG_ID },
  parameters: {
    bridge: {
      getOrganization: ok(acme),
      updateOrganization: update,
      deleteOrganization: ok(acme),
      rotateJwtSecret: ok(rotated),
    },
  } satisfies BridgeParameters,
} satisfies Meta<typeof OrganizationSettings>;

export default meta;
type Story = StoryObj<typeof meta>;

/**
 * An ADMIN in a signed-in session: name and AI context editable; slug, full embed and origins
 * read-only with a note; no rotation and no deletion (the bridge wants an API key for those).
 */
export const Admin: Story = {
  play: async ({ canvas }) => {
    await canvas.findByText(/set by your application with an API key/);
    if (canvas.queryByRole('button', { name: /Delete|Rotate|Add origin/ }))
      throw new Error('A session must not be offered API-key-only controls');
  },
};

/** An ADMIN with an API-key-backed client (no session): every setting, rotation and deletion. */
export const ApiKeyClient: Story = {
  parameters: { role: null } satisfies BridgeParameters,
  play: async ({ canvas }) => {
    await canvas.findByRole('button', { name: 'Delete organization' });
    await canvas.findByRole('button', { name: 'Add origin' });
  },
};

/** Just rotated: the new secret, once, with Copy; the previous one's grace period. */
export const SecretRotated: Story = {
  parameters: { role: null } satisfies BridgeParameters,
  play: async ({ canvas, userEvent }) => {
    await userEvent.click(await canvas.findByRole('button', { name: 'Rotate secret' }));
    const dialog = await within(document.body).findByRole('dialog');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Rotate secret' }));
    await canvas.findByLabelText('New signing secret');
  },
};

/** Origins the bridge would refuse, each with its own error. */
export const OriginErrors: Story = {
  parameters: { role: null } satisfies BridgeParameters,
  play: async ({ canvas, userEvent }) => {
    for (const origin of [
      'http://acme.example',
      'https://*.co.uk',
      'https://app.acme.example/path',
    ]) {
      await userEvent.click(await canvas.findByRole('button', { name: 'Add origin' }));
      await userEvent.type(canvas.getAllByRole('textbox', { name: /^Origin/ }).at(-1)!, origin);
    }
    await userEvent.tab();
    await canvas.findByText('Must not contain a path');
  },
};

/** Deletion: the slug must be typed before Delete does anything. */
export const DeleteConfirmation: Story = {
  parameters: { role: null } satisfies BridgeParameters,
  play: async ({ canvas, userEvent }) => {
    await userEvent.click(await canvas.findByRole('button', { name: 'Delete organization' }));
  },
};

/** A MEMBER: the settings read-only, no rotation, no deletion. */
export const Member: Story = {
  parameters: { role: 'MEMBER' } satisfies BridgeParameters,
};

export const Loading: Story = {
  parameters: { bridge: { getOrganization: 'pending' } } satisfies BridgeParameters,
};

/** No origins yet: no site can frame the page. */
export const Empty: Story = {
  parameters: {
    bridge: { getOrganization: ok({ ...acme, embedAllowedOrigins: [], customAiContext: null }) },
  } satisfies BridgeParameters,
};

export const LoadError: Story = {
  parameters: {
    bridge: {
      getOrganization: fail(
        'InternalError',
        'Something went wrong; quote the request id when reporting it',
      ),
    },
  } satisfies BridgeParameters,
};

/** 100 origins, the most the bridge keeps. */
export const LongOriginList: Story = {
  parameters: {
    role: null,
    bridge: {
      getOrganization: ok({
        ...acme,
        embedAllowedOrigins: Array.from(
          { length: 100 },
          (_, i) => `https://tenant-${i + 1}.acme.example`,
        ),
      }),
    },
  } satisfies BridgeParameters,
};

export const Narrow: Story = {
  parameters: { width: 320, role: null } satisfies BridgeParameters,
};

export const Dark: Story = {
  parameters: { theme: 'dark', role: null } satisfies BridgeParameters,
};
