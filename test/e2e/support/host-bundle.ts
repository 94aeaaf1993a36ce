import { build } from 'esbuild';

export interface Bundle {
  js: string;
  css: string;
}

/** Bundles a test page's entry (React, the kit and its CSS) in memory with esbuild. */
export async function bundlePage(entry: URL): Promise<Bundle> {
  const result = await build({
    entryPoints: [entry.pathname],
    bundle: true,
    write: false,
    outdir: '/bundle',
    format: 'esm',
    // Our packages from src/, as the rest of the repository uses them.
    conditions: ['bridgekit-source'],
    target: 'es2022',
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  const file = (ext: string) => result.outputFiles.find((f) => f.path.endsWith(ext))?.text ?? '';
  return { js: file('.js'), css: file('.css') };
}
