import {
  checkOriginPattern,
  NORMALIZED_ORIGIN,
  type ParsedOrigin,
  parseRequestOrigin,
  serializeOrigin,
} from '@bridgekit/contract';
import type * as Tldts from 'tldts';
import { lazy } from '../lazy';

// The rule itself lives in @bridgekit/contract (the kit's origins editor runs the same code);
// the bridge adds the full public-suffix list, which only creating or changing a list needs.
const tldts = lazy<typeof Tldts>('tldts');

export { type ParsedOrigin, parseRequestOrigin, serializeOrigin };
export const NORMALIZED = NORMALIZED_ORIGIN;

export type OriginPatternResult = { ok: true; value: string } | { ok: false; message: string };

// allowPrivateDomains: github.io, blogspot.com … are suffixes shared by strangers too.
const isPublicSuffix = (host: string) => {
  const info = tldts().parse(host, { allowPrivateDomains: true });
  return info.domain === null || info.publicSuffix === host;
};

/**
 * Checks and normalizes one `embedAllowedOrigins` entry; the message suits `fieldErrors`.
 * @example normalizeOriginPattern('HTTPS://*.Example.com:443/') // { ok: true, value: 'https://*.example.com' }
 */
export function normalizeOriginPattern(input: string): OriginPatternResult {
  const result = checkOriginPattern(input, isPublicSuffix);
  return result.ok ? result : { ok: false, message: result.message };
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
