import { readFileSync } from 'node:fs';
import { defineConfig } from 'vite';

/** A stylesheet with its relative `@import "./…";` lines replaced by the files' text. */
function inlineImports(file: URL): string {
  return readFileSync(file, 'utf8').replace(
    /^@import "(\.[^"]+)";$/gm,
    (_, path: string) => `${inlineImports(new URL(path, file)).trimEnd()}\n`,
  );
}

// Library build: ESM only; dependencies and peers stay imports; the CSS ships as one file.
export default defineConfig({
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    minify: false,
    lib: { entry: 'src/index.ts', formats: ['es'], fileName: 'index' },
    rollupOptions: {
      external: [/^react($|\/)/, /^react-dom($|\/)/, /^@radix-ui\//, /^@bridgekit\//],
      // The kit's components use state and context: React Server Components frameworks
      // (Next.js App Router) must treat the whole entry as client code, so a Server Component
      // file can import and render it. A banner, because bundlers drop module directives.
      output: { banner: "'use client';" },
    },
  },
  plugins: [
    {
      name: 'bridgekit-styles',
      generateBundle() {
        this.emitFile({
          type: 'asset',
          fileName: 'styles.css',
          source: inlineImports(new URL('src/styles.css', import.meta.url)),
        });
      },
    },
  ],
});
