import type { Response } from 'express';
import type { ApiError } from '../api-error';
import { setErrorHeaders } from '../http/errors';
import type { EmbedPageOptions } from '../sso/embed-options';

const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

// theme.css's page colours, light and dark (test/page-colours.test.ts keeps the copies equal).
const INLINE_STYLE = `<style>body{font:15px/1.5 system-ui,sans-serif;margin:0;padding:1.5rem;color:#1f2328;background:#fff}
@media (prefers-color-scheme:dark){body{color:#e6edf3;background:#0d1117}}h1{font-size:1.2rem}</style>`;

/** The embed bundle's files, as URLs; pages under the embed CSP (`style-src 'self'`) use them. */
export interface PageAssets {
  script?: string;
  stylesheet?: string;
}

const shell = (
  title: string,
  body: string,
  assets?: PageAssets,
  styleNonce?: string,
  theme?: EmbedPageOptions['theme'],
) => `<!doctype html><html lang="en"${theme ? ` data-bk-page-theme="${theme}"` : ''}><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>${
  styleNonce ? `\n<meta name="csp-nonce" content="${escapeHtml(styleNonce)}">` : ''
}
${assets ? (assets.stylesheet ? `<link rel="stylesheet" href="${escapeHtml(assets.stylesheet)}">` : '') : INLINE_STYLE}
</head><body>${body}</body></html>`;

/**
 * A small page for full-embed errors, shown inside the host's iframe. Without `assets` it
 * inlines its style; with them (under the embed page's CSP) it links the bundle's stylesheet.
 */
export function renderMessagePage(title: string, detail: string, assets?: PageAssets): string {
  return shell(
    title,
    `<main role="alert"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(detail)}</p></main>`,
    assets,
  );
}

/** Answers with an error as a message page: the status and headers the JSON answer would have. */
export function sendErrorPage(res: Response, err: ApiError, assets?: PageAssets) {
  setErrorHeaders(res, err);
  res
    .status(err.status)
    .type('html')
    .send(renderMessagePage(err.title, err.message, assets));
}

/**
 * The full-embed page shell; the kit's bundle (when built) replaces #bridgekit-root's content.
 * `styleNonce` is the CSP nonce the app gives the <style> elements it adds (meta csp-nonce).
 * `frameOrigins` (the organization's allowed origins, already public in frame-ancestors) are
 * where the page may say "session ended" before it knows which of them framed it.
 */
export function renderEmbedPage(input: {
  slug: string;
  frameOrigins: string[];
  options: EmbedPageOptions;
  assets: PageAssets;
  styleNonce: string;
}): string {
  const { script } = input.assets;
  const data = escapeHtml(
    JSON.stringify({
      slug: input.slug,
      frameOrigins: input.frameOrigins,
      theme: input.options.theme,
      hideOrgName: input.options.hideOrgName,
    }),
  );
  const status = script
    ? '<p role="status">Signing in…</p>'
    : '<p role="alert">This page cannot be shown: its app is not built. Run <code>npm run build:embed</code> on the bridge.</p>';
  return shell(
    'Bridgekit',
    `<div id="bridgekit-root" data-embed="${data}"><main>${status}</main></div>${
      script ? `<script type="module" src="${escapeHtml(script)}"></script>` : ''
    }`,
    input.assets,
    input.styleNonce,
    input.options.theme,
  );
}
