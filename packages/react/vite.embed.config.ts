import { defaultClientConditions, defineConfig } from 'vite';

// The bridge's full-embed page as static files: dist/embed/embed.js and embed.css, React
// included, fixed names (the bridge serves an allow-list of them; browsers revalidate them).
// Always a production build, whatever NODE_ENV the shell or a test runner has: Vite reads it to
// pick React's build and packages' `development`/`production` export conditions, and a
// development build is almost twice the size (and mixing the two breaks the page). This bundle
// is what users' customers load.
process.env.NODE_ENV = 'production';

export default defineConfig({
  root: import.meta.dirname,
  mode: 'production',
  publicDir: false,
  logLevel: 'warn',
  // The client and the contract from src/ (their `bridgekit-source` export condition).
  resolve: { conditions: ['bridgekit-source', ...defaultClientConditions] },
  build: {
    outDir: 'dist/embed',
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: false,
    cssCodeSplit: false,
    rolldownOptions: {
      input: 'src/embed/main.tsx',
      output: { entryFileNames: 'embed.js', assetFileNames: 'embed[extname]' },
      // Radix marks its modules "use client"; that means nothing in a client-only bundle.
      onwarn(warning, warn) {
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
});
