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
 *
 * One implementation for the bridge (which checks public suffixes against the full list) and
 * the kit's origins editor (which, without the list, refuses single-label suffixes only).
 */

/** Why an origin pattern was refused; the kit translates by this code. */
export type OriginPatternError =
  | 'form'
  | 'too_long'
  | 'whitespace'
  | 'backslash'
  | 'percent'
  | 'userinfo'
  | 'path'
  | 'query'
  | 'fragment'
  | 'ip'
  | 'port'
  | 'missing_host'
  | 'bad_host'
  | 'bad_wildcard'
  | 'http_only_local'
  | 'public_suffix'
  | 'public_suffix_wildcard';

export const MAX_ORIGIN_PATTERN_LENGTH = 300;

/** The bridge's English text for each refusal (its `fieldErrors` entry). */
export const originPatternMessages: Record<OriginPatternError, string> = {
  form: 'Must be https://host or https://*.host',
  too_long: `Must be at most ${MAX_ORIGIN_PATTERN_LENGTH} characters`,
  whitespace: 'Must not contain spaces or control characters',
  backslash: 'Must not contain backslashes',
  percent: 'Must not contain percent-encoding',
  userinfo: 'Must not contain a username or password',
  path: 'Must not contain a path',
  query: 'Must not contain a query',
  fragment: 'Must not contain a fragment',
  ip: 'IP addresses are not allowed, except http://127.0.0.1',
  port: 'Port must be a number from 1 to 65535',
  missing_host: 'Must include a host',
  bad_host: 'Host is not a valid domain name',
  bad_wildcard: 'A wildcard must be the whole leftmost label, as in https://*.example.com',
  http_only_local: 'http:// is allowed only for localhost and 127.0.0.1',
  public_suffix: 'Must not be a public suffix such as com or co.uk',
  public_suffix_wildcard: 'A wildcard must not cover a public suffix such as *.com or *.co.uk',
};

export type OriginPatternResult =
  | { ok: true; value: string }
  | { ok: false; error: OriginPatternError; message: string };

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

type ParseResult = { ok: true; value: ParsedOrigin } | Extract<OriginPatternResult, { ok: false }>;

const fail = (error: OriginPatternError) =>
  ({ ok: false, error, message: originPatternMessages[error] }) as const;

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

/** Scheme and the text after `://`, or the first thing wrong with the whole input. */
function splitInput(input: string): { scheme: Scheme; rest: string } | ParseResult {
  if (input.length === 0) return fail('form');
  if (input.length > MAX_ORIGIN_PATTERN_LENGTH) return fail('too_long');
  if (WHITESPACE_OR_CONTROL.test(input)) return fail('whitespace');
  if (input.includes('\\')) return fail('backslash');
  if (input.includes('%')) return fail('percent');
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(.*)$/s.exec(input);
  if (!match) return fail('form');
  const scheme = match[1]!.toLowerCase();
  if (scheme !== 'https' && scheme !== 'http') return fail('form');
  let rest = match[2]!;
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  // An empty path before `?`/`#` is not what is wrong there: name the query or fragment.
  const special = /[@?#]|\/(?![?#])/.exec(rest);
  if (special) {
    const which = { '@': 'userinfo', '/': 'path', '?': 'query', '#': 'fragment' } as const;
    return fail(which[special[0] as keyof typeof which]);
  }
  if (rest.includes('[') || rest.includes(']')) return fail('ip');
  return { scheme, rest };
}

/** Shared strict parser; `allowWildcard` is false for request origins. */
function parseOrigin(input: string, allowWildcard: boolean): ParseResult {
  const split = splitInput(input);
  if ('ok' in split) return split;
  const { scheme, rest } = split;

  let rawHost = rest;
  let port = '';
  const colon = rest.indexOf(':');
  if (colon !== -1) {
    rawHost = rest.slice(0, colon);
    const rawPort = rest.slice(colon + 1);
    if (!/^[0-9]{1,5}$/.test(rawPort) || Number(rawPort) < 1 || Number(rawPort) > 65535) {
      return fail('port');
    }
    port = String(Number(rawPort));
    if (port === DEFAULT_PORT[scheme]) port = '';
  }

  let wildcard = false;
  if (rawHost.startsWith('*.')) {
    if (!allowWildcard) return fail('form');
    wildcard = true;
    rawHost = rawHost.slice(2);
  }
  if (rawHost.includes('*')) return fail(allowWildcard ? 'bad_wildcard' : 'form');
  if (rawHost.endsWith('.')) rawHost = rawHost.slice(0, -1);
  if (rawHost.length === 0) return fail('missing_host');
  if (!RAW_HOST.test(rawHost) || rawHost.split('.').some((label) => label === '')) {
    return fail('bad_host');
  }
  return parseHost(scheme, wildcard, rawHost, port);
}

function parseHost(scheme: Scheme, wildcard: boolean, rawHost: string, port: string): ParseResult {
  // Checked on the raw text so URL's IPv4 shorthand parsing never runs on attacker input.
  if (looksLikeIp(rawHost)) {
    if (scheme === 'http' && !wildcard && rawHost === '127.0.0.1') {
      return { ok: true, value: { scheme, wildcard, host: rawHost, port } };
    }
    return fail('ip');
  }
  // The WHATWG host parser does the IDN mapping (UTS #46) and punycode.
  let host: string;
  try {
    host = new URL(`https://${rawHost}`).hostname;
  } catch {
    return fail('bad_host');
  }
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (looksLikeIp(host)) return fail('ip');
  const labels = host.split('.');
  if (host.length > 253 || !labels.every((label) => LABEL.test(label))) return fail('bad_host');
  if (scheme === 'http' && (wildcard || host !== 'localhost')) return fail('http_only_local');
  return { ok: true, value: { scheme, wildcard, host, port } };
}

/** The normalized text of an origin or pattern: `https://*.host:8443`. */
export function serializeOrigin(origin: ParsedOrigin): string {
  return `${origin.scheme}://${origin.wildcard ? '*.' : ''}${origin.host}${origin.port ? `:${origin.port}` : ''}`;
}

/**
 * Whether a host is a public suffix (`com`, `co.uk`, `github.io`). Without the public-suffix
 * list, only single-label hosts (`com`, `intranet`) are known to be one.
 */
export type IsPublicSuffix = (host: string) => boolean;

const singleLabel: IsPublicSuffix = (host) => !host.includes('.');

/**
 * Checks and normalizes one `embedAllowedOrigins` entry; the message suits `fieldErrors`.
 * The bridge passes a check against the full public-suffix list; without one, a single-label
 * host counts as a public suffix (what the bridge refuses beyond that, it reports by entry).
 * @example checkOriginPattern('HTTPS://*.Example.com:443/') // { ok: true, value: 'https://*.example.com' }
 */
export function checkOriginPattern(
  input: string,
  isPublicSuffix: IsPublicSuffix = singleLabel,
): OriginPatternResult {
  if (typeof input !== 'string') return fail('form');
  const parsed = parseOrigin(input, true);
  if (!parsed.ok) return parsed;
  const origin = parsed.value;
  if (origin.host === 'localhost' || origin.host === '127.0.0.1') {
    if (origin.wildcard) return fail('public_suffix_wildcard');
  } else if (isPublicSuffix(origin.host)) {
    return fail(origin.wildcard ? 'public_suffix_wildcard' : 'public_suffix');
  }
  return { ok: true, value: serializeOrigin(origin) };
}

/** What checkOriginPattern produces; anything else in a stored list is ignored. */
export const NORMALIZED_ORIGIN = /^(https?):\/\/(\*\.)?([a-z0-9.-]+)(?::([0-9]{1,5}))?$/;

/** A request's `Origin` header, parsed as strictly as a pattern; `null` and garbage are undefined. */
export function parseRequestOrigin(origin: string): ParsedOrigin | undefined {
  if (typeof origin !== 'string') return undefined;
  const parsed = parseOrigin(origin, false);
  return parsed.ok ? parsed.value : undefined;
}
