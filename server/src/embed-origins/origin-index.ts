import { NORMALIZED, parseRequestOrigin, serializeOrigin } from './pattern';

const key = (scheme: string, host: string, port: string) =>
  `${scheme}://${host}${port ? `:${port}` : ''}`;

/**
 * Normalized origin patterns, indexed so that a lookup costs the same however many there are:
 * exact origins by value, wildcards by the domain under them (`https://*.example.com` under
 * `https://example.com`). A request origin is looked up as itself, then with each of its
 * leading labels dropped in turn: a wildcard covers subdomains only, never its apex, and only
 * at a dot boundary (never `evil-example.com`). Scheme and port must match exactly.
 */
export class OriginIndex {
  readonly #exact = new Set<string>();
  readonly #wildcards = new Set<string>();

  constructor(patterns: Iterable<string>) {
    for (const pattern of patterns) {
      const m = NORMALIZED.exec(pattern);
      if (!m) continue;
      const [, scheme = '', wildcard, host = '', port = ''] = m;
      (wildcard ? this.#wildcards : this.#exact).add(key(scheme, host, port));
    }
  }

  /** Whether a request's `Origin` is allowed; `null`, garbage and non-origins never are. */
  allows(origin: string): boolean {
    if (this.#exact.size === 0 && this.#wildcards.size === 0) return false;
    const candidate = parseRequestOrigin(origin);
    if (!candidate) return false;
    if (this.#exact.has(serializeOrigin(candidate))) return true;
    const { scheme, host, port } = candidate;
    for (let dot = host.indexOf('.'); dot !== -1; dot = host.indexOf('.', dot + 1)) {
      if (this.#wildcards.has(key(scheme, host.slice(dot + 1), port))) return true;
    }
    return false;
  }
}

/**
 * Whether a request's `Origin` is allowed by normalized patterns.
 * @example originAllowed(['https://*.example.com'], 'https://app.example.com') // true
 */
export const originAllowed = (patterns: readonly string[], origin: string): boolean =>
  new OriginIndex(patterns).allows(origin);
