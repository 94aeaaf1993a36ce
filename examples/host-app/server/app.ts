import type { IncomingMessage, ServerResponse } from 'node:http';
import { BridgeError, createProxyHandler } from '@bridgekit/node';
import type { Config } from './config.js';
import type { HostOrganization } from './organization.js';
import type { SessionCache } from './session-cache.js';
import { staticFiles } from './static-files.js';
import { currentUser, type HostUser, isUserId, SIGN_IN_COOKIE } from './users.js';

export interface AppOptions {
  config: Config;
  organization: HostOrganization;
  session: SessionCache;
  /** The built page (Vite's `dist/`). */
  pageRoot: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

/** A request this backend refuses with 400. */
class BadRequest extends Error {}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of req) {
    text += String(chunk);
    if (text.length > 10_000) throw new BadRequest('The body is too large');
  }
  try {
    const value: unknown = text ? JSON.parse(text) : {};
    if (typeof value === 'object' && value !== null) return value as Record<string, unknown>;
  } catch {}
  throw new BadRequest('The body must be a JSON object');
}

/** What the page needs to lay itself out: who is signed in here and at the bridge, and where. */
async function me(options: AppOptions, user: HostUser, res: ServerResponse): Promise<void> {
  const session = await options.session(user, false);
  sendJson(res, 200, {
    user: { name: `${user.firstName} ${user.lastName}`, email: user.email },
    bridgeUrl: options.config.bridgeUrl,
    organization: { id: session.organization.id, name: session.organization.name },
    member: { id: session.member.id, role: session.member.role },
  });
}

/** A session token for the page's `getSessionToken`; `forceRefresh` after the bridge said 401. */
async function sessionToken(
  options: AppOptions,
  user: HostUser,
  req: IncomingMessage,
  res: ServerResponse,
) {
  const { forceRefresh } = await readJson(req);
  const session = await options.session(user, forceRefresh === true);
  sendJson(res, 200, { sessionToken: session.sessionToken, expiresAt: session.expiresAt });
}

async function signIn(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { user } = await readJson(req);
  if (!isUserId(user)) return sendJson(res, 400, { error: 'Unknown user' });
  res.setHeader('set-cookie', `${SIGN_IN_COOKIE}=${user}; Path=/; HttpOnly; SameSite=Lax`);
  sendJson(res, 200, { ok: true });
}

function signOut(res: ServerResponse): void {
  res.setHeader('set-cookie', `${SIGN_IN_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`);
  sendJson(res, 200, { ok: true });
}

/** The backend: sign-in, the bridge session for the page, the org-list proxy, the page. */
export function createApp(options: AppOptions): Handler {
  const page = staticFiles(options.pageRoot);
  // The admin console's OrgPicker lists organizations with this host's API key, through here.
  const proxy = createProxyHandler({
    baseUrl: options.config.bridgeUrl,
    apiKey: options.config.apiKey,
    mountPath: '/bridge',
    authorize: (req) => currentUser(req)?.role === 'ADMIN',
  });

  const route: Handler = async (req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://host.invalid');
    const method = req.method ?? 'GET';
    if (pathname.startsWith('/bridge/')) return proxy(req, res);
    if (pathname === '/api/sign-in' && method === 'POST') return signIn(req, res);
    if (pathname === '/api/sign-out' && method === 'POST') return signOut(res);
    if (!pathname.startsWith('/api/')) return page(req, res);
    const user = currentUser(req);
    if (!user) return sendJson(res, 401, { error: 'Sign in first' });
    if (pathname === '/api/me' && method === 'GET') return me(options, user, res);
    if (pathname === '/api/bridge-session' && method === 'POST') {
      return sessionToken(options, user, req, res);
    }
    sendJson(res, 404, { error: 'Not found' });
  };

  return async (req, res) => {
    try {
      await route(req, res);
    } catch (error) {
      if (error instanceof BadRequest) return sendJson(res, 400, { error: error.message });
      // The bridge's answer is data: log its status, title and request id, never a token.
      if (error instanceof BridgeError) {
        console.error('bridge call failed:', error.status, error.title, error.requestId);
      } else {
        console.error(error);
      }
      if (!res.headersSent) sendJson(res, 502, { error: 'The bridge is unavailable' });
      else res.end();
    }
  };
}
