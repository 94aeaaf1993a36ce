import { DataSourceForm, MemberCard, OrgPicker } from '@bridgekit/react';
import type { Meta, StoryObj } from '@storybook/react-vite';
import type { CSSProperties, ReactNode } from 'react';
import type { BridgeParameters } from '../.storybook/preview';
import { ada, ORG_ID, organizations, tunnelled } from '../test/support/fixtures';
import { HOSTILE_CSS } from '../test/support/hostile-css';
import { fail, ok, paginate } from './fake-bridge';

/** Every component together, in a host panel with `style`. */
interface ShowcaseProps {
  style?: CSSProperties;
  /** `data-bk-theme` on the wrapper: the kit inside follows it. */
  scheme?: 'light' | 'dark' | 'auto';
  children?: ReactNode;
}

function Showcase({ style, scheme, children }: ShowcaseProps) {
  return (
    <div style={{ display: 'grid', gap: 16, ...style }} data-bk-theme={scheme}>
      {children}
      <OrgPicker defaultValue={organizations[1]!.id} />
      <MemberCard member={ada} />
      <DataSourceForm orgId={ORG_ID} dataSource={tunnelled} />
    </div>
  );
}

const meta = {
  title: 'Theming',
  component: Showcase,
  parameters: {
    bridge: {
      listOrganizations: paginate(organizations.slice(0, 8)),
      getOrganization: ok(organizations[1]),
      verifyDataSource: fail('VerificationFailed', 'The connection was refused on port 5433.', {
        code: 'connection_refused',
        fields: { port: ['connection_refused', 'The connection was refused on this port.'] },
        params: { port: 5433 },
      }),
    },
  } satisfies BridgeParameters,
} satisfies Meta<typeof Showcase>;

export default meta;
type Story = StoryObj<typeof meta>;

/**
 * The host's element rules (square uppercase buttons, inline-block labels with margins, bold
 * red links, big h2s…) outside any layer: the kit looks as it does without them.
 */
export const HostileHostCss: Story = {
  render: () => (
    <Showcase>
      <style>{HOSTILE_CSS}</style>
      <h2>A host heading</h2>
      <p>Host text, restyled by the host.</p>
    </Showcase>
  ),
};

/** `--bk-*` variables and `data-bk-theme` on a wrapper reach every part, the dialogs too. */
export const VariablesOnAWrapper: Story = {
  render: () => (
    <Showcase
      scheme="dark"
      style={
        {
          '--bk-color-accent': '#be185d',
          '--bk-radius': '0px',
          '--bk-font': 'Georgia, serif',
          background: '#0d1117',
          padding: 16,
        } as CSSProperties
      }
    />
  ),
};

/** `BridgeProvider`'s `theme`: accent, radius, font, color scheme and density. */
export const ThemeProp: Story = {
  render: () => <Showcase />,
  parameters: {
    theme: {
      colorScheme: 'dark',
      accent: '#2dd4bf',
      accentText: '#042f2e',
      radius: 14,
      font: '"Trebuchet MS", sans-serif',
      density: 'comfortable',
    },
  } satisfies BridgeParameters,
};
