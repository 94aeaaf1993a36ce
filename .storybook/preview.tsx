import { createClient } from '@bridgekit/client';
import { BridgeProvider, type Theme } from '@bridgekit/react';
import type { Decorator, Preview } from '@storybook/react-vite';
import { type ReactNode, useMemo } from 'react';
import { fakeFetch, type Handlers } from '../stories/fake-bridge';
import '../packages/react/src/styles.css';

/** Story parameters read by the decorator. */
export interface BridgeParameters {
  /** Replies of the fake bridge, by route id. */
  bridge?: Handlers;
  theme?: Theme;
  /** Width of the frame, e.g. 320 for a narrow column. */
  width?: number;
}

function StoryBridge({
  parameters,
  children,
}: {
  parameters: BridgeParameters;
  children: ReactNode;
}) {
  const { bridge, theme = 'light', width } = parameters;
  // One client per story, so that re-rendering keeps loaded pages.
  const client = useMemo(
    () =>
      createClient(
        { baseUrl: 'https://bridge.example', getSessionToken: () => 'sess_story' },
        fakeFetch(bridge ?? {}),
      ),
    [bridge],
  );
  return (
    <BridgeProvider client={client} theme={theme}>
      <div
        className="bk"
        data-bk-theme={theme}
        style={{ background: 'var(--bk-color-bg)', padding: 16, width, minHeight: 120 }}
      >
        {children}
      </div>
    </BridgeProvider>
  );
}

const withBridge: Decorator = (Story, { parameters }) => (
  <StoryBridge parameters={parameters as BridgeParameters}>
    <Story />
  </StoryBridge>
);

const preview: Preview = {
  decorators: [withBridge],
  parameters: {
    layout: 'fullscreen',
    // Any axe violation fails the story's test.
    a11y: { test: 'error' },
  },
};

export default preview;
