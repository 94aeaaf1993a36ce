import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { transform } from 'lightningcss';
import { compile } from 'tailwindcss';

const require = createRequire(import.meta.url);

/**
 * Tailwind v4's own output for `@import "tailwindcss";` and the given class candidates: its
 * layer order line, theme, preflight (in `base`) and the utilities, as @tailwindcss/vite emits
 * them before minifying.
 */
export async function tailwindCss(candidates: string[]): Promise<string> {
  const root = path.dirname(require.resolve('tailwindcss/package.json'));
  const compiler = await compile('@import "tailwindcss";', {
    base: root,
    loadStylesheet: async (id: string, base: string) => {
      const file = id === 'tailwindcss' ? path.join(root, 'index.css') : path.resolve(base, id);
      return { path: file, base: path.dirname(file), content: readFileSync(file, 'utf8') };
    },
  });
  return compiler.build(candidates);
}

/** Bootstrap 5's compiled stylesheet (reboot included), as a host links it. */
export const bootstrapCss = (): string =>
  readFileSync(require.resolve('bootstrap/dist/css/bootstrap.css'), 'utf8');

/**
 * `css` as a production build ships it: Lightning CSS (what `vite build` and Next.js minify
 * with), lowered for browsers without light-dark() (Chrome 111, Safari 16.4, Firefox 115: Vite's
 * default `build.cssTarget` range), which it otherwise rewrites into --lightningcss-* variables.
 */
export function productionCss(css: string): string {
  const version = (major: number, minor = 0) => (major << 16) | (minor << 8);
  const { code } = transform({
    filename: 'app.css',
    code: Buffer.from(css),
    minify: true,
    targets: { chrome: version(111), safari: version(16, 4), firefox: version(115) },
  });
  return code.toString();
}
