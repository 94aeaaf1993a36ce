import { readFileSync } from 'node:fs';
import { defineConfig } from 'vite';

// Library build: ESM only; dependencies and peers stay imports; the CSS ships as its own file.
export default defineConfig({
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    minify: false,
    lib: { entry: 'src/index.ts', formats: ['es'], fileName: 'index' },
    rollupOptions: {
      external: [/^react($|\/)/, /^react-dom($|\/)/, /^@radix-ui\//, /^@bridgekit\//],
    },
  },
  plugins: [
    {
      name: 'bridgekit-styles',
      generateBundle() {
        this.emitFile({
          type: 'asset',
          fileName: 'styles.css',
          source: readFileSync(new URL('src/styles.css', import.meta.url), 'utf8'),
        });
      },
    },
  ],
});
