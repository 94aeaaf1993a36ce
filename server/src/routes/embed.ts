import { randomBytes } from 'node:crypto';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { expressPath, routes } from '@bridgekit/contract';
import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import { ApiError, forbidden } from '../api-error';
import type { Deps } from '../deps';
import { frameAncestors, parseStoredOrigins } from '../embed-origins';
import { jsonBody } from '../http/body';
import { mountJson } from '../http/route';
import { redeemEmbedCode } from '../sso/embed-handoff';
import { readEmbedOptions } from '../sso/embed-options';
import { findOrganizationBySlug } from '../store/organizations';
import { type PageAssets, renderEmbedPage, sendErrorPage } from './embed-page';

// No inline script anywhere on the page: the kit's bundle is served from 'self'. The one inline
// style allowed is the <style> element Radix adds at run time to lock scrolling behind a
// dialog, carrying this response's nonce (the app hands it to Radix, see embed/main.tsx).
const csp = (ancestors: string, styleNonce: string) =>
  `default-src 'self'; script-src 'self'; style-src 'self' 'nonce-${styleNonce}'; img-src 'self' data: https:; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors ${ancestors}`;

type AssetFile = (typeof routes.embedAsset.params.shape.file.options)[number];
const ASSET_TYPES: Record<AssetFile, string> = {
  'embed.js': 'text/javascript; charset=utf-8',
  'embed.css': 'text/css; charset=utf-8',
};
const isAssetFile = (file: string): file is AssetFile => Object.hasOwn(ASSET_TYPES, file);
const assetUrl = (file: AssetFile) => expressPath(routes.embedAsset.path).replace(':file', file);

export interface EmbedOptions {
  /** Directory of the kit's embed bundle (`npm run build:embed`); unset or unbuilt → the page says so. */
  assetsDir?: string;
  /** The JSON body parser (default: one with the configured limit). */
  body?: RequestHandler;
}

/** The bundle's files that exist now: a bundle built while the bridge runs is picked up. */
async function builtAssets(assetsDir: string | undefined): Promise<PageAssets> {
  if (!assetsDir) return {};
  const exists = (file: AssetFile) =>
    access(path.join(assetsDir, file)).then(
      () => assetUrl(file),
      () => undefined,
    );
  const [script, stylesheet] = await Promise.all([exists('embed.js'), exists('embed.css')]);
  return script ? { script, stylesheet } : {};
}

/** Serves the allow-listed files of the embed bundle. */
function serveAsset(assetsDir: string | undefined) {
  return (req: Request, res: Response, next: NextFunction) => {
    const file = String(req.params.file);
    // Only the allow-listed names ever reach the file system: no traversal, no other files.
    if (!assetsDir || !isAssetFile(file))
      throw new ApiError('NotFound', 'No such embed asset', { code: 'embed_asset_not_found' });
    res.sendFile(
      file,
      {
        root: assetsDir,
        dotfiles: 'deny',
        cacheControl: false,
        headers: {
          'Content-Type': ASSET_TYPES[file],
          'X-Content-Type-Options': 'nosniff',
          // Names are not hashed: revalidate (Last-Modified; the app turns ETags off) on every load.
          'Cache-Control': 'no-cache',
        },
      },
      (err?: Error & { status?: number }) => {
        if (!err) return;
        if (err.status === 404 && !res.headersSent) {
          next(
            new ApiError('NotFound', 'The embed bundle is not built (npm run build:embed)', {
              code: 'embed_not_built',
            }),
          );
        } else next(err);
      },
    );
  };
}

/**
 * The full-embed page: framed only by the organization's origins. It holds no session of its
 * own: its script signs in with the handoff code in the URL fragment (or resumes the tab's
 * session, see embed-session.ts), so it is the same page for everyone and names no member.
 */
function servePage(deps: Deps, assetsDir: string | undefined) {
  return async (req: Request, res: Response) => {
    const assets = await builtAssets(assetsDir);
    const org = await findOrganizationBySlug(deps.store.db, String(req.params.slug));
    const origins = org?.fullEmbedEnabled ? parseStoredOrigins(org) : [];
    // Full embed off answers exactly as an unknown slug: nothing says the organization exists.
    const ancestors = org?.fullEmbedEnabled ? frameAncestors(origins) : "'none'";
    const styleNonce = randomBytes(16).toString('base64');
    res.setHeader('Content-Security-Policy', csp(ancestors, styleNonce));
    res.setHeader('Cache-Control', 'no-store');
    // The address may still hold the handoff code when the page's requests start.
    res.setHeader('Referrer-Policy', 'no-referrer');
    if (!org?.fullEmbedEnabled) {
      sendErrorPage(
        res,
        new ApiError('NotFound', 'No such embed page', { code: 'embed_page_not_found' }),
        assets,
      );
      return;
    }
    const { options } = readEmbedOptions(req.query as Record<string, unknown>);
    res
      .type('html')
      .send(
        renderEmbedPage({ slug: org.slug, frameOrigins: origins, options, assets, styleNonce }),
      );
  };
}

/**
 * Whether a request comes from a page on the bridge's own origin, as a browser says it: an
 * `Origin` (every browser sends one on a POST) on the host the request was sent to, unless the
 * browser's own `Sec-Fetch-Site` says otherwise; where a proxy rewrites `Host`,
 * `Sec-Fetch-Site: same-origin` alone vouches for it.
 */
function fromOwnOrigin(req: Request): boolean {
  const origin = req.get('origin');
  const site = req.get('sec-fetch-site');
  if (!origin || (site !== undefined && site !== 'same-origin')) return false;
  if (site === 'same-origin') return true;
  try {
    return new URL(origin).host === req.host;
  } catch {
    return false;
  }
}

export function embedRoutes(router: Router, deps: Deps, options: EmbedOptions = {}) {
  const { assetsDir } = options;
  const body = options.body ?? jsonBody({ limitBytes: deps.config.bodyLimitBytes });
  router.get(expressPath(routes.embedAsset.path), serveAsset(assetsDir));
  router.get(expressPath(routes.embedPage.path), servePage(deps, assetsDir));

  mountJson(router, routes.embedSession, { body }, async ({ req, res, body }) => {
    // A custom header forces a CORS preflight, which other sites fail: same-origin use only.
    if (req.get('x-bridgekit-embed') !== '1')
      throw forbidden('Send X-Bridgekit-Embed: 1', 'embed_header_required');
    const { session, org } = await redeemEmbedCode(deps, body.code, {
      framingOrigin: body.framingOrigin,
      sameOrigin: fromOwnOrigin(req),
    });
    res.setHeader('Cache-Control', 'no-store');
    const { claims } = session;
    return {
      data: {
        sessionToken: session.sessionToken,
        expiresAt: claims.expiresAt.toISOString(),
        absoluteExpiresAt: claims.absoluteExpiresAt.toISOString(),
        organizationId: org.id,
        organizationName: org.name,
        memberId: claims.memberId,
        framingOrigin: claims.framingOrigin ?? '',
      },
    };
  });
}
