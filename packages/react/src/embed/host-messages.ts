/** What the full-embed page tells the page that frames it (never addressed to `*`). */
export type HostMessage =
  | { type: 'bridgekit:resize'; height: number }
  | { type: 'bridgekit:session-ended' };

/** `value` parsed, when it is an origin and nothing more (no path, no wildcard). */
export function parsedOrigin(value: string): URL | undefined {
  if (value.includes('*')) return undefined;
  try {
    const url = new URL(value);
    return url.origin === value ? url : undefined;
  } catch {
    return undefined;
  }
}

const WILDCARD = /^(https?):\/\/\*\.([^/:]+)(?::(\d+))?$/;

/**
 * Whether `origin` is one of the organization's normalized origin patterns: an exact origin, or
 * under a `scheme://*.domain[:port]` wildcard (subdomains only, scheme and port exact), as the
 * bridge matches them.
 */
export function originMatches(patterns: readonly string[], origin: string): boolean {
  const url = parsedOrigin(origin);
  if (!url) return false;
  return patterns.some((pattern) => {
    if (pattern === origin) return true;
    const m = WILDCARD.exec(pattern);
    if (!m) return false;
    const [, scheme, domain, port = ''] = m;
    return (
      url.protocol === `${scheme}:` && url.port === port && url.hostname.endsWith(`.${domain}`)
    );
  });
}

/**
 * Where a message to the host may go: the origin that framed the sign-in once the page has its
 * session. Before that (a failed sign-in), `parent` when it is one of the organization's
 * (wildcards included): the parent's origin as the browser reports it, else (Firefox) the one
 * the bridge checked at sign-in. Else each of the organization's exact origins: a message
 * addressed to an origin that is not the parent's is dropped by the browser, so only the
 * parent gets it.
 */
export function hostTargets(
  framingOrigin: string | null,
  frameOrigins: readonly string[],
  parent: string | undefined,
): string[] {
  if (framingOrigin) return [framingOrigin];
  if (parent && originMatches(frameOrigins, parent)) return [parent];
  // A wildcard is no origin to address: only the exact ones can be tried blind.
  return frameOrigins.filter((origin) => !origin.includes('*'));
}

/** Posts `message` to the parent window at each of `targets`; nothing when not framed. */
export function postToHost(message: HostMessage, targets: readonly string[], win: Window = window) {
  if (win.parent === win) return;
  for (const origin of targets) {
    try {
      win.parent.postMessage(message, origin);
    } catch {
      // An origin the browser cannot parse: skip it.
    }
  }
}

/** The origin of the frame's parent as the browser reports it (Chromium and WebKit do). */
export function parentOrigin(loc: Location = location): string | undefined {
  const origins = (loc as Location & { ancestorOrigins?: DOMStringList }).ancestorOrigins;
  return origins && origins.length > 0 ? (origins[0] ?? undefined) : undefined;
}

/**
 * The framing origin the page reports when it signs in: the parent's origin as the browser
 * reports it; where the browser reports none (Firefox), the sign-in's own origin, but only
 * from inside a frame (which the page's `frame-ancestors` limits to the organization's
 * origins). At top level, none: the bridge then refuses the code, so a sign-in link opened
 * by someone else never signs them in.
 */
export function reportedFramingOrigin(
  signInOrigin: string | undefined,
  win: Window = window,
): string | undefined {
  if (win.parent === win) return undefined;
  return parentOrigin(win.location) ?? signInOrigin;
}
