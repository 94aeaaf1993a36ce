import { randomUUID } from 'node:crypto';
import type { Express, NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { type Metrics, noMetrics } from '../observability/metrics';
import { noTracing, type Tracing } from '../observability/tracing';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
// Query parameters that carry credentials never reach a log line, however their names are
// spelled: compared after decoding until nothing changes (`%6Awt`, `%256Awt`), trimmed of
// spaces and control characters (`jwt%00`, `jwt%20`), case-folded, without `[…]` suffixes.
const SECRET_PARAMS = new Set(['jwt', 'token', 'access_token', 'key', 'apikey', 'api_key', 'code']);
// An API key or a JWT (an SSO or session token) pasted anywhere else in a URL (the path,
// another parameter) is redacted too.
const API_KEY = /bk_key_[A-Za-z0-9]{32}/g;
const HAS_API_KEY = /bk_key_[A-Za-z0-9]{32}/;
const JWT = /eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;
const HAS_JWT = /eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/;
// What a name is trimmed of: whitespace and C0/C1 control characters, as a lenient reader might.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it trims.
const EDGE_JUNK = /^[\s\u0000-\u001f\u007f-\u009f]+|[\s\u0000-\u001f\u007f-\u009f]+$/g;
const MAX_DECODES = 8;

/** Percent-decoding as the query parser does it, never throwing on a malformed sequence. */
function decodeLoose(text: string): string {
  const plus = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(plus);
  } catch {
    return plus.replace(/%([0-9a-f]{2})/gi, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
  }
}

/** `text` percent-decoded again and again until it stops changing (double encoding and more). */
function decodeFully(text: string): string {
  let current = text;
  for (let i = 0; i < MAX_DECODES; i++) {
    const next = decodeLoose(current);
    if (next === current) return next;
    current = next;
  }
  return current;
}

/**
 * A URL part with any API key or JWT in it redacted: written plainly, only the credential;
 * percent-encoded (at any depth), the whole part.
 */
function redactKeys(part: string): string {
  const plain = part.replace(API_KEY, 'bk_key_[redacted]').replace(JWT, '[redacted]');
  const decoded = decodeFully(plain);
  return HAS_API_KEY.test(decoded) || HAS_JWT.test(decoded) ? '[redacted]' : plain;
}

/** A parameter name as a lenient reader would take it: decoded, trimmed, case-folded. */
const plainName = (name: string) =>
  decodeFully(name).replace(/\[.*$/s, '').replace(EDGE_JUNK, '').toLowerCase();

function redactParam(param: string): string {
  const eq = param.indexOf('=');
  if (eq === -1) return redactKeys(param);
  const name = param.slice(0, eq);
  return SECRET_PARAMS.has(plainName(name))
    ? `${name}=[redacted]`
    : `${redactKeys(name)}=${redactKeys(param.slice(eq + 1))}`;
}

/** The URL as the access log shows it: credentials in the query, API keys and JWTs anywhere redacted. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const path = (q === -1 ? url : url.slice(0, q)).split('/').map(redactKeys).join('/');
  if (q === -1) return path;
  return `${path}?${url
    .slice(q + 1)
    .split('&')
    .map(redactParam)
    .join('&')}`;
}

const LOG = Symbol('bk.log');

/** Balancer and orchestrator probes: off the access log unless BRIDGE_LOG_PROBES=true. */
export const PROBE_PATHS = new Set(['/livez', '/readyz', '/healthz']);

/** Whether a request URL (path and query) is a probe's, without parsing it. */
function isProbe(url: string): boolean {
  const q = url.indexOf('?');
  return PROBE_PATHS.has(q === -1 ? url : url.slice(0, q));
}

/**
 * Gives every request an id (kept from a well-formed `X-Request-Id`), echoes it with
 * `X-Content-Type-Options: nosniff`, and logs the outcome. `req.log` (bound to the id) is made on first use: most requests only write the
 * access line.
 */
export function requestContext(
  app: Express,
  {
    log,
    logProbes = true,
    metrics = noMetrics,
    tracing = noTracing,
  }: { log: Logger; logProbes?: boolean; metrics?: Metrics; tracing?: Tracing },
) {
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: Request & { [LOG]?: Logger }) {
      this[LOG] ??= log.child({ reqId: this.id });
      return this[LOG];
    },
  });
  // The access line has fixed fields, none secret (the URL is redacted above), so it skips the
  // logger's path redaction, the costliest part of writing it.
  const access = log.child({}, { redact: [] });

  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && SAFE_ID.test(incoming) ? incoming : randomUUID();
    const started = performance.now();
    req.arrivedAt = started;
    req.id = id;
    res.setHeader('X-Request-Id', id);
    // No response is ever to be read as another type than it says (JSON as HTML, say).
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const logged = logProbes || !isProbe(req.url);
    const span = tracing.startRequest(req.method, req.headers);
    res.on('finish', () => {
      const route = (req.route?.path as string | undefined) ?? '(unmatched)';
      metrics.request(route, req.method, res.statusCode, (performance.now() - started) / 1000);
      span?.end(route, res.statusCode);
      if (!logged) return;
      access.info(
        {
          reqId: id,
          ...(span ? { traceId: span.traceId } : {}),
          method: req.method,
          url: redactUrl(req.originalUrl),
          status: res.statusCode,
          ms: Math.round((performance.now() - started) * 10) / 10,
        },
        'request',
      );
    });
    next();
  };
}
