import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Run, run } from '../../pack/support/host-app';

/**
 * The apps of the host-stack matrix: each made by its stack's own CLI (create-vite,
 * create-next-app) inside one install root, whose node_modules every app resolves, then given
 * the same pages: a provider themed `{ accent: '#0f766e', font: 'inherit' }` around an OrgPicker
 * and a new DataSourceForm, and a lifecycle page (`?page=lifecycle` in Vite apps, `/lifecycle`
 * in Next.js) with OrganizationSettings, MemberList, DataSourceList and a SchemaBrowser in a
 * host panel; all on a host stylesheet that sets the page's font to Georgia. One build serves
 * both pages. The Vite variants are pages (`/<name>/`, each with its own entry and stylesheet)
 * of as few multi-page Vite apps as keep each page's CSS in order (`viteBuilds`).
 */

export type Stack = 'vite' | 'next';

export interface AppSpec {
  name: string;
  stack: Stack;
  /** The stylesheet lines the app's CSS entry starts with (Vite apps). */
  css?: string;
  /** JavaScript imports of stylesheets, in order, before the app's own CSS (Vite apps). */
  cssImports?: string[];
  /** The page's stylesheet needs Tailwind v4's Vite plugin (the one Vite build then has it). */
  tailwind?: boolean;
  /** Next.js: `next build --webpack` instead of Turbopack. */
  webpack?: boolean;
  /** A Tailwind utility on the form, and whether it must beat the kit's radius. */
  utilityWins?: boolean;
}

/** Versions the matrix installs from the registry; the kit comes from the packed tarballs. */
export const STACK_DEPENDENCIES: Record<string, string> = {
  react: '^19',
  'react-dom': '^19',
  vite: '^8',
  '@vitejs/plugin-react': '^6',
  next: '^16',
  tailwindcss: '^4',
  '@tailwindcss/vite': '^4',
  bootstrap: '^5',
  // Next.js installs these into the app itself (with a second copy of next and react) when
  // the install root lacks them.
  typescript: '^5',
  '@types/react': '^19',
  '@types/react-dom': '^19',
  '@types/node': '^20',
};

// The host panel the SchemaBrowser sits in (it draws no background of its own) follows the
// kit's scheme attribute, as a host's dark mode would.
const HOST_CSS = `body { margin: 0; font-family: Georgia, serif; }
main { padding: 24px; }
.host-lifecycle { display: grid; gap: 24px; }
.host-panel { padding: 16px; background: #ffffff; color: #1f2328; }
[data-bk-theme="dark"] .host-panel { background: #0d1117; color: #e6edf3; }
`;
const THEME = "{ accent: '#0f766e', font: 'inherit' }";

/** The lifecycle components, as JSX over two expressions: the organization and data source ids. */
const LIFECYCLE = (orgId: string, dataSourceId: string) =>
  `<OrganizationSettings orgId={${orgId}} />
      <MemberList orgId={${orgId}} />
      <DataSourceList orgId={${orgId}} />
      <section className="host-panel" aria-label="Synced tables">
        <SchemaBrowser orgId={${orgId}} dataSourceId={${dataSourceId}} dataSourceName="Warehouse" />
      </section>`;

/** One package.json with every stack's dependencies and the tarballs, installed once. */
export async function installRoot(root: string, tarballs: string[]): Promise<Run> {
  mkdirSync(root, { recursive: true });
  const dependencies = { ...STACK_DEPENDENCIES };
  for (const tarball of tarballs) {
    const name = `@bridgekit/${path.basename(tarball).replace(/^bridgekit-(\w+)-.*$/, '$1')}`;
    dependencies[name] = `file:${tarball}`;
  }
  writeFileSync(
    path.join(root, 'package.json'),
    JSON.stringify({ name: 'host-stacks', private: true, type: 'module', dependencies }, null, 2),
  );
  const flags = ['--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];
  return run('npm', ['install', ...flags], root);
}

/** Runs a stack's create CLI once into `dir` (from the registry, with npm exec). */
export async function scaffold(stack: Stack, dir: string): Promise<Run> {
  const cwd = path.dirname(dir);
  const name = path.basename(dir);
  return stack === 'vite'
    ? run(
        'npm',
        [
          'exec',
          '--yes',
          '--',
          'create-vite@latest',
          name,
          '--template',
          'react-ts',
          '--no-interactive',
        ],
        cwd,
      )
    : run(
        'npm',
        [
          'exec',
          '--yes',
          '--',
          'create-next-app@16',
          name,
          '--ts',
          '--app',
          '--no-eslint',
          '--no-tailwind',
          '--no-src-dir',
          '--import-alias',
          '@/*',
          '--use-npm',
          '--skip-install',
          '--disable-git',
          '--no-react-compiler',
          '--yes',
        ],
        cwd,
      );
}

/** A copy of the scaffold `template` at `dir`, its own dependency list gone. */
function copyTemplate(template: string, dir: string, name: string, stack: Stack) {
  rmSync(dir, { recursive: true, force: true });
  cpSync(template, dir, { recursive: true });
  // Everything resolves from the install root's one copy.
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name, private: true, type: stack === 'vite' ? 'module' : undefined }),
  );
}

/** A copy of the create-next-app `template` at `dir`, given the matrix pages. */
export function writeNextApp(name: string, template: string, dir: string, root: string) {
  copyTemplate(template, dir, name, 'next');
  writeNextPages(dir, root);
}

/**
 * The Vite pages grouped into as few builds as keep every page's CSS in its own import order. A
 * stylesheet that two entries of one build import from JavaScript becomes a chunk of its own,
 * which Vite links after the entry's CSS (the kit's after the host's); one imported with a CSS
 * `@import` is inlined into each page's stylesheet, so such pages share a build freely.
 */
export function viteBuilds(specs: AppSpec[]): AppSpec[][] {
  const builds: AppSpec[][] = [];
  const clash = (a: AppSpec, b: AppSpec) =>
    (a.cssImports ?? []).some((sheet) => b.cssImports?.includes(sheet));
  for (const spec of specs) {
    const fits = builds.find((pages) => !pages.some((page) => clash(page, spec)));
    if (fits) fits.push(spec);
    else builds.push([spec]);
  }
  return builds;
}

/**
 * A copy of the create-vite `template` at `dir` with one page per spec: `<name>/index.html`
 * (the scaffold's own, pointed at `src/<name>/main.tsx`), the spec's stylesheets, and one
 * `vite.config.ts` whose build takes every page as an entry.
 */
export function writeViteApp(specs: AppSpec[], template: string, dir: string) {
  copyTemplate(template, dir, path.basename(dir), 'vite');
  const tailwind = specs.some((spec) => spec.tailwind);
  const inputs = specs.map((spec) => `    '${spec.name}': '${spec.name}/index.html',`);
  writeFileSync(
    path.join(dir, 'vite.config.ts'),
    `import react from '@vitejs/plugin-react';
${tailwind ? "import tailwindcss from '@tailwindcss/vite';\n" : ''}import { defineConfig } from 'vite';
export default defineConfig({
  plugins: [${tailwind ? 'react(), tailwindcss()' : 'react()'}],
  build: { rolldownOptions: { input: {
${inputs.join('\n')}
  } } },
});
`,
  );
  const html = readFileSync(path.join(template, 'index.html'), 'utf8');
  if (!html.includes('/src/main.tsx'))
    throw new Error(`create-vite's index.html changed:\n${html}`);
  for (const spec of specs) {
    mkdirSync(path.join(dir, spec.name));
    writeFileSync(
      path.join(dir, spec.name, 'index.html'),
      html.replace('/src/main.tsx', `/src/${spec.name}/main.tsx`),
    );
    writeVitePage(spec, path.join(dir, 'src', spec.name));
  }
}

function writeVitePage(spec: AppSpec, dir: string) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'app.css'), `${spec.css ?? ''}\n${HOST_CSS}`);
  const imports = [...(spec.cssImports ?? []), './app.css'].map((file) => `import '${file}';`);
  writeFileSync(
    path.join(dir, 'main.tsx'),
    `${imports.join('\n')}
import { createClient } from '@bridgekit/client';
import {
  BridgeProvider,
  DataSourceForm,
  DataSourceList,
  MemberList,
  OrganizationSettings,
  OrgPicker,
  SchemaBrowser,
} from '@bridgekit/react';
import { createRoot } from 'react-dom/client';

// The session token comes in the URL's fragment (the test exchanged it with @bridgekit/node).
const client = createClient({
  baseUrl: import.meta.env.VITE_BRIDGE_URL,
  getSessionToken: () => new URLSearchParams(location.hash.slice(1)).get('token') ?? '',
});

const orgId = import.meta.env.VITE_ORG_ID;
const page =
  new URLSearchParams(location.search).get('page') === 'lifecycle' ? (
    <main className="host-lifecycle">
      <h1>Lifecycle</h1>
      ${LIFECYCLE('orgId', 'import.meta.env.VITE_DATA_SOURCE_ID')}
    </main>
  ) : (
    <main>
      <h1>Host stack</h1>
      <OrgPicker />
      <DataSourceForm orgId={orgId}${spec.utilityWins === undefined ? '' : ' className="rounded-none"'} />
    </main>
  );

createRoot(document.getElementById('root')!).render(
  <BridgeProvider client={client} theme={${THEME}}>
    {page}
  </BridgeProvider>,
);
`,
  );
}

function writeNextPages(dir: string, root: string) {
  const app = path.join(dir, 'app');
  rmSync(path.join(app, 'page.module.css'), { force: true });
  writeFileSync(
    path.join(dir, 'next.config.ts'),
    `import type { NextConfig } from 'next';
// One install root above the app (the matrix shares it); types are checked by the pack test.
const config: NextConfig = {
  turbopack: { root: ${JSON.stringify(root)} },
  outputFileTracingRoot: ${JSON.stringify(root)},
  typescript: { ignoreBuildErrors: true },
};
export default config;
`,
  );
  writeFileSync(path.join(app, 'globals.css'), HOST_CSS);
  writeFileSync(
    path.join(app, 'layout.tsx'),
    `import '@bridgekit/react/styles.css';
import './globals.css';
export const metadata = { title: 'Host stack' };
export default function RootLayout({ children }: { children: React.ReactNode }) {
  return <html lang="en"><body>{children}</body></html>;
}
`,
  );
  // A client file of the host's: the provider takes a function, which a Server Component cannot pass.
  writeFileSync(
    path.join(app, 'bridge.tsx'),
    `'use client';
import { BridgeProvider } from '@bridgekit/react';
const getSessionToken = async () =>
  (await (await fetch('/api/session', { method: 'POST' })).json()).sessionToken as string;
export function Bridge({ children }: { children: React.ReactNode }) {
  return (
    <BridgeProvider baseUrl={process.env.NEXT_PUBLIC_BRIDGE_URL!} getSessionToken={getSessionToken} theme={${THEME}}>
      {children}
    </BridgeProvider>
  );
}
`,
  );
  // A Server Component page that imports the kit.
  writeFileSync(
    path.join(app, 'page.tsx'),
    `import { DataSourceForm, OrgPicker } from '@bridgekit/react';
import { Bridge } from './bridge';
export default function Page() {
  return (
    <Bridge>
      <main>
        <h1>Host stack</h1>
        <OrgPicker />
        <DataSourceForm orgId={process.env.NEXT_PUBLIC_ORG_ID!} />
      </main>
    </Bridge>
  );
}
`,
  );
  // A second Server Component page, in the same build: the lifecycle components.
  mkdirSync(path.join(app, 'lifecycle'), { recursive: true });
  writeFileSync(
    path.join(app, 'lifecycle/page.tsx'),
    `import { DataSourceList, MemberList, OrganizationSettings, SchemaBrowser } from '@bridgekit/react';
import { Bridge } from '../bridge';
export default function Lifecycle() {
  const orgId = process.env.NEXT_PUBLIC_ORG_ID!;
  return (
    <Bridge>
      <main className="host-lifecycle">
        <h1>Lifecycle</h1>
        ${LIFECYCLE('orgId', 'process.env.NEXT_PUBLIC_DATA_SOURCE_ID!')}
      </main>
    </Bridge>
  );
}
`,
  );
  // A route handler using @bridgekit/node: sign an SSO token, exchange it for a session.
  mkdirSync(path.join(app, 'api/session'), { recursive: true });
  writeFileSync(
    path.join(app, 'api/session/route.ts'),
    `import { createSsoToken, exchangeSsoToken } from '@bridgekit/node';
export const dynamic = 'force-dynamic';
export async function POST() {
  const jwt = await createSsoToken({
    secret: process.env.BRIDGE_ORG_SECRET!,
    orgId: process.env.NEXT_PUBLIC_ORG_ID!,
    user: { email: 'ada@host.test', firstName: 'Ada', role: 'ADMIN' },
  });
  const session = await exchangeSsoToken({ baseUrl: process.env.BRIDGE_URL!, jwt });
  return Response.json({ sessionToken: session.sessionToken });
}
`,
  );
}
