import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import {
  request as httpRequest,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import { createServer, type Server } from 'node:https';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeSelfSignedCert } from '../../support/self-signed-cert';

/**
 * Names a throwaway certificate covers by default, all loopback. Browsers treat `localhost` and
 * `127.0.0.1` as two sites (a site is scheme + registrable domain, and neither has one), so a
 * host page on one framing the bridge on the other is a cross-site embed. Names under
 * `.localhost` are more sites: WebKit (and Chromium) resolve them to loopback themselves, though
 * Node's `fetch` does not. Servers here listen on 127.0.0.1 only, so no `::1`.
 */
export const LOOPBACK_NAMES = [
  'localhost',
  '127.0.0.1',
  'bridge.localhost',
  'host.localhost',
] as const;

export interface TlsCert {
  /** PEM certificate (self-signed, valid one day). */
  cert: string;
  /** PEM private key (P-256). */
  key: string;
  /** DNS names and IP addresses in its subjectAltName. */
  names: string[];
}

/**
 * A self-signed certificate for `names`, made by `openssl` in a temporary directory that is
 * removed before this resolves: nothing of it outlives the test process.
 */
export async function makeThrowawayCert(
  names: readonly string[] = LOOPBACK_NAMES,
): Promise<TlsCert> {
  if (names.length === 0) throw new Error('makeThrowawayCert: at least one name');
  const dir = mkdtempSync(path.join(tmpdir(), 'bk-tls-'));
  try {
    const keyFile = path.join(dir, 'key.pem');
    const certFile = path.join(dir, 'cert.pem');
    await writeSelfSignedCert({ keyFile, certFile }, names);
    return {
      cert: readFileSync(certFile, 'utf8'),
      key: readFileSync(keyFile, 'utf8'),
      names: [...names],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface ServedRequest {
  method: string;
  /** Path and query, as received. */
  url: string;
  host: string;
  /** The Cookie header the browser sent, if any. */
  cookie: string | undefined;
  /** The answer's status once sent (forwarded or not); undefined while in flight. */
  status?: number;
  /** The answer's Set-Cookie headers, once sent. */
  setCookie?: string[];
}

export interface TlsServer {
  port: number;
  /** `https://<host>:<port>` for the default host name (see `host`). */
  origin: string;
  /** The origin of this server under another name the certificate covers, e.g. `127.0.0.1`. */
  originAs(host: string): string;
  /** Requests served so far: method, path with query, and the Cookie header they carried. */
  requests: ServedRequest[];
  close(): Promise<void>;
}

export interface TlsServerOptions {
  /** Default: a fresh `makeThrowawayCert()`. Share one between servers to save ~50 ms each. */
  cert?: TlsCert;
  /** The name `origin` uses; must be one of the certificate's names. Default `localhost`. */
  host?: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void | Promise<void>;

/**
 * Fills `served.status` and `served.setCookie` when the answer is sent. Headers given to
 * `writeHead` as an object bypass `getHeader`, so they are read on the way through.
 */
function recordAnswer(res: ServerResponse, served: ServedRequest) {
  const cookies: string[] = [];
  const take = (value: unknown) => {
    if (value !== undefined) cookies.push(...([] as unknown[]).concat(value).map(String));
  };
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  (res as { writeHead: unknown }).writeHead = (...args: unknown[]) => {
    for (const arg of args.slice(1)) {
      if (!arg || typeof arg !== 'object' || Array.isArray(arg)) continue;
      for (const [name, value] of Object.entries(arg)) {
        if (name.toLowerCase() === 'set-cookie') take(value);
      }
    }
    return writeHead(...args);
  };
  res.once('finish', () => {
    take(res.getHeader('set-cookie'));
    served.status = res.statusCode;
    // writeHead merges its object into headers set earlier: the same line may come twice.
    if (cookies.length > 0) served.setCookie = [...new Set(cookies)];
  });
}

const hostForUrl = (host: string) => (isIP(host) === 6 ? `[${host}]` : host);

/**
 * An HTTPS server on a free port of 127.0.0.1 with a throwaway certificate: a host page on its
 * own site, or an endpoint a browser test needs over TLS.
 */
export async function startHttpsServer(
  handler: Handler,
  options: TlsServerOptions = {},
): Promise<TlsServer> {
  const cert = options.cert ?? (await makeThrowawayCert());
  const host = options.host ?? 'localhost';
  if (!cert.names.includes(host)) {
    throw new Error(`startHttpsServer: the certificate does not cover ${host} (${cert.names})`);
  }
  const requests: TlsServer['requests'] = [];
  const server: Server = createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
    const served: ServedRequest = {
      method: req.method ?? '',
      url: req.url ?? '',
      host: req.headers.host ?? '',
      cookie: req.headers.cookie,
    };
    requests.push(served);
    recordAnswer(res, served);
    const url = new URL(req.url ?? '/', `https://${req.headers.host ?? host}`);
    Promise.resolve(handler(req, res, url)).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const port = (server.address() as { port: number }).port;
  const originAs = (name: string) => {
    if (!cert.names.includes(name)) throw new Error(`the certificate does not cover ${name}`);
    return `https://${hostForUrl(name)}:${port}`;
  };
  return {
    port,
    origin: originAs(host),
    originAs,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

// Hop-by-hop headers (RFC 9110 7.6.1) are not forwarded by a proxy.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

export interface TlsFrontOptions extends TlsServerOptions {
  /** The plain-HTTP server behind it, e.g. a bridge's `http://127.0.0.1:<port>`. */
  target: string;
  /**
   * Answers some requests itself (return true) instead of forwarding them: a test endpoint on
   * the bridge's site without touching the bridge.
   */
  intercept?: (req: IncomingMessage, res: ServerResponse, url: URL) => boolean | Promise<boolean>;
}

/**
 * A TLS-terminating reverse proxy in front of `target`, as a host deploys the bridge: HTTPS with
 * a throwaway certificate outside, plain HTTP inside, with `X-Forwarded-Proto: https`,
 * `X-Forwarded-Host` and `X-Forwarded-For` added (start the bridge with
 * `BRIDGE_TRUST_PROXY=loopback` so it believes them). Bodies stream both ways.
 */
export async function startTlsFront(options: TlsFrontOptions): Promise<TlsServer> {
  const target = new URL(options.target);
  if (target.protocol !== 'http:')
    throw new Error(`startTlsFront: target must be http:, got ${target}`);
  return startHttpsServer(async (req, res, url) => {
    if (options.intercept && (await options.intercept(req, res, url))) return;
    const headers: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
    }
    headers['x-forwarded-proto'] = 'https';
    headers['x-forwarded-host'] = req.headers.host ?? '';
    headers['x-forwarded-for'] = req.socket.remoteAddress ?? '';
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers,
        timeout: 30_000,
      },
      (answer) => {
        const out: OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(answer.headers)) {
          if (!HOP_BY_HOP.has(name) && value !== undefined) out[name] = value;
        }
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, out);
        answer.pipe(res);
      },
    );
    upstream.on('timeout', () => upstream.destroy(new Error('upstream timed out')));
    upstream.on('error', (error) => {
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`TLS front: ${target.origin} failed: ${error.message}`);
      } else res.destroy(error);
    });
    req.pipe(upstream);
  }, options);
}
