import { defaultClientConditions, defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// Our packages from src/ (the `bridgekit-source` export condition): tests need no build.
const SOURCE = 'bridgekit-source';

// Vitest projects: node-side tests (server, client, node SDK, cross-package)
// and browser-like component tests in jsdom.
export default defineConfig({
  resolve: { conditions: [SOURCE, ...defaultClientConditions] },
  ssr: { resolve: { conditions: [SOURCE, ...defaultServerConditions] } },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          environment: 'node',
          include: [
            'packages/client/test/**/*.test.ts',
            'packages/node/test/**/*.test.ts',
            'server/test/**/*.test.ts',
            'test/**/*.test.ts',
          ],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'react',
          environment: 'jsdom',
          include: ['packages/react/src/**/*.test.{ts,tsx}', 'packages/react/test/**/*.test.tsx'],
        },
      },
    ],
  },
});
