import { NORMALIZED, parseRequestOrigin, serializeOrigin } from './pattern';

/**
 * The normalized patterns that would allow a request's `Origin`: the origin itself, then a
 * wildcard over each domain above its host (`https://*.example.com` for
 * `https://app.example.com`): a wildcard covers subdomains only, never its apex, and only at a
 * dot boundary (never `evil-example.com`). Scheme and port as the origin's. Empty for `null`,
 * garbage and anything that is not a plain origin. At most one per label of the host.
 * @example allowingPatterns('https://a.b.example.com') // ['https://a.b.example.com', 'https://*.b.example.com', 'https://*.example.com', 'https://*.com']
 */
export function allowingPatterns(origin: string): string[] {
  const candidate = parseRequestOrigin(origin);
  if (!candidate) return [];
  const patterns = [serializeOrigin(candidate)];
  const { host } = candidate;
  for (let dot = host.indexOf('.'); dot !== -1; dot = host.indexOf('.', dot + 1)) {
    patterns.push(serializeOrigin({ ...candidate, wildcard: true, host: host.slice(dot + 1) }));
  }
  return patterns;
}

/**
 * An allow-list of normalized patterns, indexed so that a lookup costs the same however many
 * there are: the origin's few allowing patterns, each looked up by value. Entries that are not
 * normalized patterns allow nothing.
 */
export class OriginIndex {
  readonly #patterns = new Set<string>();

  constructor(patterns: Iterable<string>) {
    for (const pattern of patterns) if (NORMALIZED.test(pattern)) this.#patterns.add(pattern);
  }

  /** Whether a request's `Origin` is allowed; `null`, garbage and non-origins never are. */
  allows(origin: string): boolean {
    if (this.#patterns.size === 0) return false;
    return allowingPatterns(origin).some((pattern) => this.#patterns.has(pattern));
  }
}

/**
 * Whether a request's `Origin` is allowed by normalized patterns.
 * @example originAllowed(['https://*.example.com'], 'https://app.example.com') // true
 */
export const originAllowed = (patterns: readonly string[], origin: string): boolean =>
  new OriginIndex(patterns).allows(origin);
