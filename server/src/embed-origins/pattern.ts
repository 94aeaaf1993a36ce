import type * as Tldts from 'tldts';
import { lazy } from '../lazy';

// The public-suffix list is large; only creating or changing an allow-list needs it.
const tldts = lazy<typeof Tldts>('tldts');
const parseDomain: typeof Tldts.parse = (...args) => tldts().parse(...args);

/**
 * Embed origin patterns: `https://host[:port]`, `https://*.host[:port]` (the wildcard is the
 * whole leftmost label and never sits directly over a public suffix), and
 * `http://localhost[:port]` / `http://127.0.0.1[:port]` for development. No path, query,
 * fragment or userinfo. Stored normalized (lowercase, no default port, no trailing slash or
 * dot, IDN as punycode); matched against a request's `Origin`. An empty list allows no origin.
 *
 * Deliberately strict beyond that:
 * - IP literals are refused everywhere (IPv4 in any spelling, IPv6), except the exact
 *   `127.0.0.1` over http: an embedding site has a name, and numeric hosts invite
 *   shorthand tricks (`0x7f.1`, `2130706433`).
 * - `https://localhost[:port]` is accepted (local TLS setups); `*.localhost` is not.
 * - Host labels are letters, digits and inner hyphens (plus IDN, stored as punycode);
 *   `_`, whitespace, control characters, `\` and `%` are refused, never repaired.
 */

export type OriginPatternResult = { ok: true; value: string } | { ok: false; message: string };

export const MAX_ORIGIN_PATTERN_LENGTH = 300;

const FORM = 'Must be https://host or https://*.host';
const HTTP_ONLY_LOCAL = 'http:// is allowed only for localhost and 127.0.0.1';
const NO_IP = 'IP addresses are not allowed, except http://127.0.0.1';
const BAD_HOST = 'Host is not a valid domain name';
const BAD_WILDCARD = 'A wildcard must be the whole leftmost label, as in https://*.example.com';

const DEFAULT_PORT = { https: '443', http: '80' } as const;
type Scheme = keyof typeof DEFAULT_PORT;

export interface ParsedOrigin {
  scheme: Scheme;
  wildcard: boolean;
  /** ASCII lowercase host, no trailing dot. */
  host: string;
  /** Non-default port as decimal digits, or '' for the default port. */
  port: string;
}

type ParseResult = { ok: true; value: ParsedOrigin } | { ok: false; message: string };

const fail = (message: string): { ok: false; message: string } => ({ ok: false, message });

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
// WHATWG URL treats a host whose last label is numeric (or 0x…) as IPv4, in any shorthand.
const NUMERIC_LABEL = /^(?:[0-9]+|0x[0-9a-f]*)$/i;
// Before IDN mapping: ASCII letters, digits, dots, hyphens, or any non-ASCII character.
const RAW_HOST = /^[A-Za-z0-9.\-\u0080-\u{10FFFF}]+$/u;
const WHITESPACE_OR_CONTROL = /[\s\p{Cc}]/u;

function looksLikeIp(host: string): boolean {
  const labels = host.split('.');
  return NUMERIC_LABEL.test(labels[labels.length - 1] ?? '');
}

/** Shared strict parser; `allowWildcard` is false for request origins. */
function parseOrigin(input: string, allowWildcard: boolean): ParseResult {
  if (input.length === 0) return fail(FORM);
  if (input.length > MAX_ORIGIN_PATTERN_LENGTH) {
    return fail(`Must be at most ${MAX_ORIGIN_PATTERN_LENGTH} characters`);
  }
  if (WHITESPACE_OR_CONTROL.test(input))
    return fail('Must not contain spaces or control characters');
  if (input.includes('\\')) return fail('Must not contain backslashes');
  if (input.includes('%')) return fail('Must not contain percent-encoding');

  const match = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(.*)$/s.exec(input);
  if (!match) return fail(FORM);
  const scheme = match[1]!.toLowerCase();
  if (scheme !== 'https' && scheme !== 'http') return fail(FORM);
  let rest = match[2]!;
  if (rest.endsWith('/')) rest = rest.slice(0, -1);

  // An empty path before `?`/`#` is not what is wrong there: name the query or fragment.
  const special = /[@?#]|\/(?![?#])/.exec(rest);
  if (special) {
    if (special[0] === '@') return fail('Must not contain a username or password');
    if (special[0] === '/') return fail('Must not contain a path');
    if (special[0] === '?') return fail('Must not contain a query');
    return fail('Must not contain a fragment');
  }
  if (rest.includes('[') || rest.includes(']')) return fail(NO_IP);

  let rawHost = rest;
  let port = '';
  const colon = rest.indexOf(':');
  if (colon !== -1) {
    rawHost = rest.slice(0, colon);
    const rawPort = rest.slice(colon + 1);
    if (!/^[0-9]{1,5}$/.test(rawPort) || Number(rawPort) < 1 || Number(rawPort) > 65535) {
      return fail('Port must be a number from 1 to 65535');
    }
    port = String(Number(rawPort));
    if (port === DEFAULT_PORT[scheme]) port = '';
  }

  let wildcard = false;
  if (rawHost.startsWith('*.')) {
    if (!allowWildcard) return fail(FORM);
    wildcard = true;
    rawHost = rawHost.slice(2);
  }
  if (rawHost.includes('*')) return fail(allowWildcard ? BAD_WILDCARD : FORM);
  if (rawHost.endsWith('.')) rawHost = rawHost.slice(0, -1);
  if (rawHost.length === 0) return fail('Must include a host');
  if (!RAW_HOST.test(rawHost) || rawHost.split('.').some((label) => label === '')) {
    return fail(BAD_HOST);
  }

  // Checked on the raw text so URL's IPv4 shorthand parsing never runs on attacker input.
  if (looksLikeIp(rawHost)) {
    if (scheme === 'http' && !wildcard && rawHost === '127.0.0.1') {
      return { ok: true, value: { scheme, wildcard, host: rawHost, port } };
    }
    return fail(NO_IP);
  }

  // The WHATWG host parser does the IDN mapping (UTS #46) and punycode.
  let host: string;
  try {
    host = new URL(`https://${rawHost}`).hostname;
  } catch {
    return fail(BAD_HOST);
  }
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (looksLikeIp(host)) return fail(NO_IP);
  const labels = host.split('.');
  if (host.length > 253 || !labels.every((label) => LABEL.test(label))) return fail(BAD_HOST);

  if (scheme === 'http' && (wildcard || host !== 'localhost')) return fail(HTTP_ONLY_LOCAL);
  return { ok: true, value: { scheme, wildcard, host, port } };
}

/** The normalized text of an origin or pattern: `https://*.host:8443`. */
export function serializeOrigin(origin: ParsedOrigin): string {
  return `${origin.scheme}://${origin.wildcard ? '*.' : ''}${origin.host}${origin.port ? `:${origin.port}` : ''}`;
}

/**
 * Checks and normalizes one `embedAllowedOrigins` entry; the message suits `fieldErrors`.
 * @example normalizeOriginPattern('HTTPS://*.Example.com:443/') // { ok: true, value: 'https://*.example.com' }
 */
export function normalizeOriginPattern(input: string): OriginPatternResult {
  if (typeof input !== 'string') return fail(FORM);
  const parsed = parseOrigin(input, true);
  if (!parsed.ok) return parsed;
  const origin = parsed.value;

  if (origin.host !== 'localhost' && origin.host !== '127.0.0.1') {
    // allowPrivateDomains: github.io, blogspot.com … are suffixes shared by strangers too.
    const info = parseDomain(origin.host, { allowPrivateDomains: true });
    const isPublicSuffix = info.domain === null || info.publicSuffix === origin.host;
    if (isPublicSuffix) {
      return fail(
        origin.wildcard
          ? 'A wildcard must not cover a public suffix such as *.com or *.co.uk'
          : 'Must not be a public suffix such as com or co.uk',
      );
    }
  } else if (origin.wildcard) {
    return fail('A wildcard must not cover a public suffix such as *.com or *.co.uk');
  }
  return { ok: true, value: serializeOrigin(origin) };
}

/** What normalizeOriginPattern produces; anything else in a stored list is ignored. */
export const NORMALIZED = /^(https?):\/\/(\*\.)?([a-z0-9.-]+)(?::([0-9]{1,5}))?$/;

/** A request's `Origin` header, parsed as strictly as a pattern; `null` and garbage are undefined. */
export function parseRequestOrigin(origin: string): ParsedOrigin | undefined {
  if (typeof origin !== 'string') return undefined;
  const parsed = parseOrigin(origin, false);
  return parsed.ok ? parsed.value : undefined;
}

/**
 * The CSP `frame-ancestors` source list for normalized patterns (`'none'` when empty).
 * @example frameAncestors(['https://*.example.com']) // "https://*.example.com"
 */
export function frameAncestors(patterns: readonly string[]): string {
  // Only well-formed entries reach the header, so a bad row can't inject a directive.
  const sources = patterns.filter((pattern) => NORMALIZED.test(pattern));
  return sources.length === 0 ? "'none'" : sources.join(' ');
}
