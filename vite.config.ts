import { defineConfig } from 'vitest/config';

// Vitest projects: node-side tests (server, client, node SDK, cross-package)
// and browser-like component tests in jsdom.
export default defineConfig({
  test: {
    projects: [
      {
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
        test: {
          name: 'react',
          environment: 'jsdom',
          include: ['packages/react/src/**/*.test.{ts,tsx}', 'packages/react/test/**/*.test.tsx'],
        },
      },
    ],
  },
});
