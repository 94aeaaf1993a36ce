import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createSsoToken, type SsoUser } from '@bridgekit/node';
import type { Bundle } from './host-bundle';
import { readBody, send, startHttpServer, type TestServer } from './http-server';

export interface HostSiteOptions {
  bridgeUrl: string;
  /** The organization, once created: it lists the site's origin, so it comes after the site. */
  org: () => { id: string; slug: string; jwtSecret: string };
  /** The user this host's backend vouches for. */
  user: SsoUser;
  /** The host's service API key: used by its backend proxy, never sent to the browser. */
  apiKey: string;
  bundle: Bundle;
}

export interface HostSite extends TestServer {
  /** Query strings of the organization list calls the backend proxy forwarded. */
  proxied: string[];
}

const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

const page = (title: string, body: string, head = '') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>${head}</head><body>${body}</body></html>`;

/** A "Reports" page of the host that frames `src`. */
const framing = (res: ServerResponse, src: string) =>
  send(
    res,
    200,
    'text/html; charset=utf-8',
    page(
      'Reports',
      `<h1>Reports</h1><iframe title="Bridgekit" src="${attr(src)}" width="1100" height="900"></iframe>`,
    ),
  );

/**
 * A host site on `http://localhost:<port>`: its "backend" signs SSO tokens for its signed-in user
 * (a host cookie stands in for its login), proxies the organization list with its API key, and
 * serves the kit page plus pages that frame the bridge's full-embed flow.
 */
export async function startHostSite(options: HostSiteOptions): Promise<HostSite> {
  const { bridgeUrl, org, user, apiKey, bundle } = options;
  const proxied: string[] = [];
  const login = randomBytes(12).toString('hex');
  let cookieName = '';
  const signedIn = (req: IncomingMessage) =>
    (req.headers.cookie ?? '').split(';').some((c) => c.trim() === `${cookieName}=${login}`);
  const sign = () => createSsoToken({ secret: org().jwtSecret, orgId: org().id, user });

  const server = await startHttpServer(async (req, res, url) => {
    const route = `${req.method} ${url.pathname}`;
    if (route === 'GET /') {
      // Cookies ignore ports: one name per host site, so two sites on localhost stay apart.
      res.setHeader('set-cookie', `${cookieName}=${login}; Path=/; HttpOnly; SameSite=Lax`);
      const config = attr(JSON.stringify({ bridgeUrl, orgId: org().id }));
      send(
        res,
        200,
        'text/html; charset=utf-8',
        page(
          'Host admin',
          `<div id="host" data-config="${config}"></div><script type="module" src="/app.js"></script>`,
          '<link rel="stylesheet" href="/app.css">',
        ),
      );
    } else if (route === 'GET /app.js') {
      send(res, 200, 'text/javascript; charset=utf-8', bundle.js);
    } else if (route === 'GET /app.css') {
      send(res, 200, 'text/css; charset=utf-8', bundle.css);
    } else if (route === 'POST /sso-token') {
      await readBody(req);
      if (!signedIn(req)) return send(res, 401, 'text/plain', 'not signed in to the host');
      send(res, 200, 'text/plain', await sign());
    } else if (route === 'GET /api/public/organizations') {
      // The host backend's allow-listed proxy: its own login decides, its API key authenticates.
      if (!signedIn(req))
        return send(
          res,
          401,
          'application/json',
          '{"error":{"title":"Unauthorized","detail":"host login"}}',
        );
      proxied.push(url.search);
      const upstream = await fetch(`${bridgeUrl}/api/public/organizations${url.search}`, {
        headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json' },
      });
      send(res, upstream.status, 'application/json', await upstream.text());
    } else if (route === 'GET /embed-host') {
      framing(res, `${bridgeUrl}/api/sso/jwt?jwt=${encodeURIComponent(await sign())}`);
    } else if (route === 'GET /embed-link') {
      // A bridge link someone handed over (a sign-in redirect's `/embed/orgs/…#code=…`).
      framing(res, `${bridgeUrl}${url.searchParams.get('path') ?? '/'}`);
    } else if (route === 'GET /embed-direct') {
      framing(res, `${bridgeUrl}/embed/orgs/${encodeURIComponent(org().slug)}`);
    } else {
      send(res, 404, 'text/plain', 'not found');
    }
  });
  cookieName = `host_login_${server.port}`;
  return { ...server, proxied };
}
