import { createClient } from '@bridgekit/client';
import type { Role } from '@bridgekit/contract';
import { BridgeProvider, type ColorScheme, type Theme } from '@bridgekit/react';
import type { Decorator, Preview } from '@storybook/react-vite';
import { type ReactNode, useMemo } from 'react';
import { fail, fakeFetch, type Handlers, ok } from '../stories/fake-bridge';
import { organizations, sessionInfo } from '../test/support/fixtures';
import '../packages/react/src/styles.css';

/** Story parameters read by the decorator. */
export interface BridgeParameters {
  /** Replies of the fake bridge, by route id. */
  bridge?: Handlers;
  /** The provider's theme; without it, the toolbar's Scheme and Theme choose. */
  theme?: ColorScheme | Theme;
  /** Width of the frame, e.g. 320 for a narrow column. */
  width?: number;
  /** The role the session reports (default ADMIN); null: no session, as behind an API-key proxy. */
  role?: Role | null;
}

/** The toolbar's themes: the default, and two that move every knob. */
export const BRANDS: Record<string, Theme> = {
  default: {},
  rose: { accent: '#be185d', radius: 0, font: 'Georgia, serif', density: 'compact' },
  teal: {
    accent: '#0f766e',
    radius: 14,
    fontSize: 16,
    density: 'comfortable',
    vars: { '--bk-color-border-subtle': '#99d5cf' },
  },
};

/** `GET /api/sso/session` as the bridge answers it for `role`. */
const sessionReply = (role: Role | null) =>
  role
    ? ok(sessionInfo(organizations[0]!, role))
    : fail('Forbidden', 'This needs a session token, not an API key', { code: 'session_required' });

interface StoryBridgeProps {
  parameters: BridgeParameters;
  theme: ColorScheme | Theme;
  children: ReactNode;
}

function StoryBridge({ parameters, theme, children }: StoryBridgeProps) {
  const { bridge, width, role = 'ADMIN' } = parameters;
  const scheme = typeof theme === 'string' ? theme : (theme.colorScheme ?? 'light');
  // One client per story, so that re-rendering keeps loaded pages.
  const client = useMemo(
    () =>
      createClient(
        { baseUrl: 'https://bridge.example', getSessionToken: () => 'sess_story' },
        fakeFetch({ ssoSession: sessionReply(role), ...bridge }),
      ),
    [bridge, role],
  );
  return (
    <BridgeProvider client={client} theme={theme}>
      <div
        className="story-frame"
        style={{
          colorScheme: scheme === 'auto' ? 'light dark' : scheme,
          // theme.css's page colours (test/page-colours.test.ts keeps the copies equal).
          background: 'light-dark(#ffffff, #0d1117)',
          color: 'light-dark(#1f2328, #e6edf3)',
          padding: 16,
          width,
          minHeight: '100vh',
        }}
      >
        {children}
      </div>
    </BridgeProvider>
  );
}

const withBridge: Decorator = (Story, { parameters, globals }) => {
  const story = parameters as BridgeParameters;
  const theme = story.theme ?? {
    colorScheme: (globals.scheme as ColorScheme | undefined) ?? 'light',
    ...BRANDS[(globals.brand as string | undefined) ?? 'default'],
  };
  return (
    <StoryBridge parameters={story} theme={theme}>
      <Story />
    </StoryBridge>
  );
};

const preview: Preview = {
  decorators: [withBridge],
  globalTypes: {
    scheme: {
      description: 'Colour scheme of the kit',
      toolbar: {
        title: 'Scheme',
        icon: 'mirror',
        items: [
          { value: 'light', title: 'Light' },
          { value: 'dark', title: 'Dark' },
          { value: 'auto', title: 'Auto (system)' },
        ],
        dynamicTitle: true,
      },
    },
    brand: {
      description: 'Theme passed to BridgeProvider',
      toolbar: {
        title: 'Theme',
        icon: 'paintbrush',
        items: [
          { value: 'default', title: 'Default' },
          { value: 'rose', title: 'Rose: square, serif, compact' },
          { value: 'teal', title: 'Teal: round, 16 px, comfortable' },
        ],
        dynamicTitle: true,
      },
    },
  },
  initialGlobals: { scheme: 'light', brand: 'default' },
  parameters: {
    layout: 'fullscreen',
    // Any axe violation fails the story's test.
    a11y: { test: 'error' },
  },
};

export default preview;
