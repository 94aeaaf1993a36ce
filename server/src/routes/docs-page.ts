import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expressPath, routes } from '@bridgekit/contract';

/**
 * The reference page's policy. Scripts come only from the bridge (Scalar's bundle and our
 * start-up script; no inline script, no eval). Styles may be inline: Scalar adds <style>
 * elements and style attributes at run time, and only part of them carry a nonce. Requests go
 * only to this bridge (try-it calls, the OpenAPI document), so nothing leaves for a CDN.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const assetUrl = (file: 'scalar.js' | 'docs.js') =>
  expressPath(routes.docsAsset.path).replace(':file', file);

// Scalar's default theme has muted text and method colours below WCAG AA contrast (4.5:1) on
// its panels; these keep its look with shades that pass, in light and dark mode.
const CONTRAST_CSS = `.light-mode {
  --scalar-color-2: #5f5f5f;
  --scalar-color-3: #666666;
  --scalar-color-blue: #0065a8;
  --scalar-color-green: #00754a;
  --scalar-color-orange: #b34700;
  --scalar-color-red: #c41e1e;
  --scalar-color-yellow: #8a6100;
  --scalar-color-purple: #6b3fbf;
}
.dark-mode {
  --scalar-color-3: #8c8c8c;
}`;

/** Scalar's options: everything that would call another host is off (the CSP blocks it too). */
export const SCALAR_CONFIG = {
  url: routes.openApi.path,
  // Its default fonts load from Scalar's CDN; the system fonts read as well.
  withDefaultFonts: false,
  telemetry: false,
  // A pasted API key lives in the page's memory only, never in localStorage.
  persistAuth: false,
  showDeveloperTools: 'never',
  // Scalar's hosted AI chat and MCP links are services of theirs, not of this bridge.
  agent: { disabled: true },
  mcp: { disabled: true },
  documentDownloadType: 'json',
  metaData: { title: 'Bridgekit API reference' },
  // Its button to open Scalar's hosted client would leave this bridge; the in-page one stays.
  hideClientButton: true,
  customCss: CONTRAST_CSS,
};

/** The start-up script: mounts the reference with the options above. */
export const DOCS_SCRIPT = `Scalar.createApiReference('#bridgekit-docs', ${JSON.stringify(SCALAR_CONFIG)});
// Scalar's copy buttons on code blocks show an icon and have no name: give them one. Its list
// of a tag's operations scrolls once a tag has many, with nothing in it a keyboard can reach:
// make the list itself focusable, so it can be scrolled without a mouse.
new MutationObserver(() => {
  for (const button of document.querySelectorAll('button.scalar-code-copy:not([aria-label])')) {
    button.setAttribute('aria-label', 'Copy code');
  }
  for (const list of document.querySelectorAll('.endpoints:not([tabindex])')) {
    list.setAttribute('tabindex', '0');
    list.setAttribute('aria-label', 'Operations');
  }
}).observe(document.body, { childList: true, subtree: true });
`;

/** The page: Scalar renders the OpenAPI document into it. */
export const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Bridgekit API reference</title>
<link rel="icon" href="data:,">
</head>
<body>
<noscript>The API reference needs JavaScript. The OpenAPI document is at <a href="${routes.openApi.path}">${routes.openApi.path}</a>.</noscript>
<div id="bridgekit-docs"></div>
<script src="${assetUrl('scalar.js')}"></script>
<script src="${assetUrl('docs.js')}"></script>
</body>
</html>
`;

/**
 * Scalar's browser bundle: the copy the build put beside the server bundle (server/dist/scalar.js,
 * see server/build.mjs), or, running from source, the installed devDependency's own file.
 */
export function scalarBundlePath(): string {
  const copy = fileURLToPath(new URL('./scalar.js', import.meta.url));
  if (fs.existsSync(copy)) return copy;
  const entry = createRequire(import.meta.url).resolve('@scalar/api-reference');
  return path.join(path.dirname(entry), 'browser', 'standalone.js');
}
