import type { StorybookConfig } from '@storybook/react-vite';
import { defaultClientConditions } from 'vite';

const config: StorybookConfig = {
  stories: ['../stories/*.stories.tsx'],
  addons: ['@storybook/addon-a11y'],
  framework: { name: '@storybook/react-vite', options: {} },
  core: { disableTelemetry: true },
  typescript: { reactDocgen: false },
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
