import { randomBytes } from 'node:crypto';
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
const LIGHT = 'color:#1f2328;background:#fff';
const DARK = 'color:#e6edf3;background:#0d1117';
const BASE = 'font:15px/1.5 system-ui,sans-serif;margin:0;padding:1.5rem';

/** The message page's own style in `theme` (`auto`, or none asked: follows the OS). */
const inlineStyle = (theme: EmbedPageOptions['theme'] | undefined, nonce?: string) => {
  const open = nonce ? `<style nonce="${escapeHtml(nonce)}">` : '<style>';
  if (theme === 'light') return `${open}body{${BASE};${LIGHT}}h1{font-size:1.2rem}</style>`;
  if (theme === 'dark') return `${open}body{${BASE};${DARK}}h1{font-size:1.2rem}</style>`;
  return `${open}body{${BASE};${LIGHT}}
@media (prefers-color-scheme:dark){body{${DARK}}}h1{font-size:1.2rem}</style>`;
};

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
${assets ? (assets.stylesheet ? `<link rel="stylesheet" href="${escapeHtml(assets.stylesheet)}">` : '') : inlineStyle(theme, styleNonce)}
</head><body>${body}</body></html>`;

/**
 * A small page for full-embed errors, shown inside the host's iframe. Without `assets` it
 * inlines its style; with them (under the embed page's CSP) it links the bundle's stylesheet.
 */
export function renderMessagePage(
  title: string,
  detail: string,
  assets?: PageAssets,
  look: { theme?: EmbedPageOptions['theme']; nonce?: string; script?: string } = {},
): string {
  const script = look.script
    ? `<script nonce="${escapeHtml(look.nonce ?? '')}">${look.script}</script>`
    : '';
  return shell(
    title,
    `<main role="alert"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(detail)}</p></main>${script}`,
    assets,
    look.nonce,
    look.theme,
  );
}

/** JSON for an inline script: nothing in it can close the script element or start a comment. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e');

/** What a failed full-embed sign-in tells the page that framed it, and where. */
export interface SignInFailureNotice {
  /** The framing origin, one the organization allows (never `*`). */
  origin: string;
  message: { type: 'bridgekit:session-ended'; reason: string; limit?: number };
}

/**
 * A failed full-embed sign-in as a page in the host's iframe: in the colours the sign-in URL
 * asked for (`theme`), and, when the framing origin is one the organization allows, posting
 * `bridgekit:session-ended` with the reason to exactly that origin. Its own CSP admits only
 * its nonced style and script.
 */
export function sendSignInFailurePage(
  res: Response,
  err: ApiError,
  theme: EmbedPageOptions['theme'],
  notice: SignInFailureNotice | undefined,
) {
  const nonce = randomBytes(16).toString('base64');
  const script = notice
    ? `if(window.parent!==window)window.parent.postMessage(${scriptJson(notice.message)},${scriptJson(notice.origin)});`
    : undefined;
  setErrorHeaders(res, err);
  res.setHeader(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'`,
  );
  res
    .status(err.status)
    .type('html')
    .send(renderMessagePage(err.title, err.message, undefined, { theme, nonce, script }));
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
