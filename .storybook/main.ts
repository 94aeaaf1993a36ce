import type { StorybookConfig } from '@storybook/react-vite';
import { defaultClientConditions } from 'vite';

const config: StorybookConfig = {
  stories: ['../stories/*.stories.tsx'],
  // addon-docs: each component's docs page (props table, usage snippet) from `tags: ['autodocs']`.
  addons: ['@storybook/addon-a11y', '@storybook/addon-docs'],
  framework: { name: '@storybook/react-vite', options: {} },
  core: { disableTelemetry: true },
  // The props table reads each component's TypeScript props. BRIDGEKIT_STORYBOOK_DOCGEN=0 skips
  // that (two thirds of a build's CPU) for test/e2e/storybook-a11y, which checks stories only.
  typescript: {
    reactDocgen: process.env.BRIDGEKIT_STORYBOOK_DOCGEN === '0' ? false : 'react-docgen-typescript',
  },
  viteFinal: (vite) => ({
    ...vite,
    // The kit and the client from src/ (their `bridgekit-source` export condition): no build step.
    resolve: { ...vite.resolve, conditions: ['bridgekit-source', ...defaultClientConditions] },
    build: {
      ...vite.build,
      rolldownOptions: {
        ...vite.build?.rolldownOptions,
        // Radix marks its modules "use client"; that means nothing in a client-only bundle.
        onwarn(warning, warn) {
          if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
          warn(warning);
        },
      },
    },
  }),
};

export default config;
