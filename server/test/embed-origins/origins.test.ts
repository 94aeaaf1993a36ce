import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { frameAncestors, normalizeOriginPattern, originAllowed } from '../../src/embed-origins';

const FORM = 'Must be https://host or https://*.host';
const HTTP_ONLY_LOCAL = 'http:// is allowed only for localhost and 127.0.0.1';
const NO_IP = 'IP addresses are not allowed, except http://127.0.0.1';
const BAD_HOST = 'Host is not a valid domain name';
const BAD_WILDCARD = 'A wildcard must be the whole leftmost label, as in https://*.example.com';
const SUFFIX_WILDCARD = 'A wildcard must not cover a public suffix such as *.com or *.co.uk';
const SUFFIX_EXACT = 'Must not be a public suffix such as com or co.uk';
const PORT = 'Port must be a number from 1 to 65535';

describe('normalizeOriginPattern: accepted', () => {
  it.each([
    ['https://example.com', 'https://example.com'],
    ['https://example.com/', 'https://example.com'],
    ['HTTPS://App.Example.COM', 'https://app.example.com'],
    ['https://example.com:443', 'https://example.com'],
    ['https://example.com:8443', 'https://example.com:8443'],
    ['https://example.com:08443', 'https://example.com:8443'],
    ['https://example.com.', 'https://example.com'],
    ['https://example.com.:443/', 'https://example.com'],
    ['https://*.example.com', 'https://*.example.com'],
    ['https://*.Example.com:443/', 'https://*.example.com'],
    ['https://*.example.com:8443', 'https://*.example.com:8443'],
    ['https://*.a.b.example.co.uk', 'https://*.a.b.example.co.uk'],
    ['https://*.foo.github.io', 'https://*.foo.github.io'],
    ['https://foo.github.io', 'https://foo.github.io'],
    ['https://bücher.example', 'https://xn--bcher-kva.example'],
    ['https://*.bücher.example', 'https://*.xn--bcher-kva.example'],
    ['https://xn--bcher-kva.example', 'https://xn--bcher-kva.example'],
    ['https://ｅｘａｍｐｌｅ.com', 'https://example.com'],
    ['https://ex。com', 'https://ex.com'],
    ['https://a-b.example.com', 'https://a-b.example.com'],
    ['http://localhost', 'http://localhost'],
    ['http://LOCALHOST:80', 'http://localhost'],
    ['http://localhost:3000', 'http://localhost:3000'],
    ['http://localhost.:3000/', 'http://localhost:3000'],
    ['http://127.0.0.1', 'http://127.0.0.1'],
    ['http://127.0.0.1:5173', 'http://127.0.0.1:5173'],
    ['https://localhost:3000', 'https://localhost:3000'],
  ])('%s -> %s', (input, value) => {
    expect(normalizeOriginPattern(input)).toEqual({ ok: true, value });
  });
});

describe('normalizeOriginPattern: rejected', () => {
  it.each([
    ['', FORM],
    ['example.com', FORM],
    ['*.example.com', FORM],
    ['//example.com', FORM],
    ['https:/example.com', FORM],
    ['https:example.com', FORM],
    ['ftp://example.com', FORM],
    ['javascript://example.com', FORM],
    ['wss://example.com', FORM],
    ['null', FORM],
    ['https://', 'Must include a host'],
    ['https://:443', 'Must include a host'],
    ['https://*.', 'Must include a host'],
    ['https://example.com/path', 'Must not contain a path'],
    ['https://example.com//', 'Must not contain a path'],
    ['https://example.com?x=1', 'Must not contain a query'],
    ['https://example.com/?', 'Must not contain a query'],
    ['https://example.com#top', 'Must not contain a fragment'],
    ['https://user@example.com', 'Must not contain a username or password'],
    ['https://user:pass@example.com', 'Must not contain a username or password'],
    ['https://evil.com@example.com', 'Must not contain a username or password'],
    ['https://example.com\\@evil.com', 'Must not contain backslashes'],
    ['https:\\\\example.com', 'Must not contain backslashes'],
    ['https://exa%6dple.com', 'Must not contain percent-encoding'],
    ['https://example.com%2f', 'Must not contain percent-encoding'],
    [' https://example.com', 'Must not contain spaces or control characters'],
    ['https://example.com ', 'Must not contain spaces or control characters'],
    ['https://exa\tmple.com', 'Must not contain spaces or control characters'],
    ['https://example.com\n', 'Must not contain spaces or control characters'],
    ['https://exa\u0000mple.com', 'Must not contain spaces or control characters'],
    ['https://exa\u00a0mple.com', 'Must not contain spaces or control characters'],
    ['https://example.com:0', PORT],
    ['https://example.com:', PORT],
    ['https://example.com:65536', PORT],
    ['https://example.com:123456', PORT],
    ['https://example.com:80a', PORT],
    ['https://example.com:443:443', PORT],
    ['https://example..com', BAD_HOST],
    ['https://.example.com', BAD_HOST],
    ['https://example.com..', BAD_HOST],
    ['https://-example.com', BAD_HOST],
    ['https://example-.com', BAD_HOST],
    ['https://exa_mple.com', BAD_HOST],
    ['https://exa!mple.com', BAD_HOST],
    ['https://exa$mple.com', BAD_HOST],
    ['https://a／b.com', BAD_HOST],
    ['https://a＠b.com', BAD_HOST],
    ['https://xn--abc.com', BAD_HOST],
    [`https://${'a'.repeat(64)}.com`, BAD_HOST],
    ['https://*x.example.com', BAD_WILDCARD],
    ['https://x*.example.com', BAD_WILDCARD],
    ['https://a.*.example.com', BAD_WILDCARD],
    ['https://*.*.example.com', BAD_WILDCARD],
    ['https://example.*', BAD_WILDCARD],
    ['https://*', BAD_WILDCARD],
    ['https://**.example.com', BAD_WILDCARD],
    ['https://*.com', SUFFIX_WILDCARD],
    ['https://*.co.uk', SUFFIX_WILDCARD],
    ['https://*.github.io', SUFFIX_WILDCARD],
    ['https://*.blogspot.com', SUFFIX_WILDCARD],
    ['https://*.example', SUFFIX_WILDCARD],
    ['https://*.localhost', SUFFIX_WILDCARD],
    ['https://*.COM.', SUFFIX_WILDCARD],
    ['https://com', SUFFIX_EXACT],
    ['https://co.uk', SUFFIX_EXACT],
    ['https://github.io', SUFFIX_EXACT],
    ['https://intranet', SUFFIX_EXACT],
    ['http://example.com', HTTP_ONLY_LOCAL],
    ['http://*.example.com', HTTP_ONLY_LOCAL],
    ['http://localhost.example.com', HTTP_ONLY_LOCAL],
    ['http://*.localhost', HTTP_ONLY_LOCAL],
    ['https://127.0.0.1', NO_IP],
    ['https://1.2.3.4', NO_IP],
    ['http://10.0.0.1', NO_IP],
    ['http://127.1', NO_IP],
    ['http://127.0.0.01', NO_IP],
    ['http://0x7f.0.0.1', NO_IP],
    ['http://2130706433', NO_IP],
    ['https://0x7f.1', NO_IP],
    ['https://example.123', NO_IP],
    ['https://１２７．０．０．１', NO_IP],
    ['http://*.127.0.0.1', NO_IP],
    ['https://[::1]', NO_IP],
    ['http://[::1]:3000', NO_IP],
    [`https://${'a'.repeat(290)}.com`, 'Must be at most 300 characters'],
  ])('%j -> %s', (input, message) => {
    expect(normalizeOriginPattern(input)).toEqual({ ok: false, message });
  });
});

describe('originAllowed', () => {
  const patterns = [
    'https://app.example.org',
    'https://*.example.com',
    'https://*.example.net:8443',
    'http://localhost:3000',
    'https://*.xn--bcher-kva.example',
  ];

  it.each([
    ['https://app.example.org', true],
    ['https://APP.example.org', true],
    ['https://app.example.org:443', true],
    ['https://app.example.org.', true],
    ['https://app.example.org/', true],
    ['https://a.example.com', true],
    ['https://a.b.example.com', true],
    ['https://A.Example.COM', true],
    ['https://a.example.com:443', true],
    ['https://a.example.net:8443', true],
    ['http://localhost:3000', true],
    ['https://shop.xn--bcher-kva.example', true],
    ['https://shop.bücher.example', true],
    ['https://example.com', false],
    ['https://example.com.', false],
    ['https://evil-example.com', false],
    ['https://evilexample.com', false],
    ['https://a.example.com.evil.com', false],
    ['https://example.com.evil.com', false],
    ['http://a.example.com', false],
    ['https://a.example.com:8443', false],
    ['https://a.example.net', false],
    ['https://a.example.net:443', false],
    ['https://app.example.org:8443', false],
    ['http://app.example.org', false],
    ['https://x.app.example.org', false],
    ['http://localhost', false],
    ['http://localhost:3001', false],
    ['https://localhost:3000', false],
    ['http://127.0.0.1:3000', false],
    ['https://xn--bcher-kva.example', false],
    ['null', false],
    ['', false],
    ['*', false],
    ['https://*.example.com', false],
    ['https://a.example.com/path', false],
    ['https://user@a.example.com', false],
    ['https://a.example.com\\@evil.com', false],
    ['https://a%2eexample.com', false],
    ['file://', false],
  ])('%j -> %s', (origin, allowed) => {
    expect(originAllowed(patterns, origin)).toBe(allowed);
  });

  it('an empty list allows nothing', () => {
    expect(originAllowed([], 'https://a.example.com')).toBe(false);
  });

  it('ignores stored entries that are not normalized patterns', () => {
    expect(
      originAllowed(['*', 'https://*', 'HTTPS://*.EXAMPLE.COM'], 'https://a.example.com'),
    ).toBe(false);
  });
});

describe('frameAncestors', () => {
  it("is 'none' for an empty list", () => {
    expect(frameAncestors([])).toBe("'none'");
  });

  it('lists the patterns separated by spaces', () => {
    expect(frameAncestors(['https://app.example.org', 'https://*.example.com:8443'])).toBe(
      'https://app.example.org https://*.example.com:8443',
    );
  });

  it('drops entries that could inject a directive', () => {
    expect(frameAncestors(["https://a.example.com; script-src 'unsafe-inline'"])).toBe("'none'");
  });
});

// Property tests: generated domains and patterns.
const label = fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/);
const tld = fc.constantFrom('com', 'org', 'net', 'io', 'co.uk', 'dev', 'example');
const domain = fc
  .tuple(fc.array(label, { minLength: 1, maxLength: 3 }), tld)
  .map(([labels, suffix]) => `${labels.join('.')}.${suffix}`)
  // Random labels sometimes land on a listed suffix (us.com, github.io): not a domain.
  .filter((d) => normalizeOriginPattern(`https://*.${d}`).ok);
const port = fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined });
const withPort = (origin: string, p: number | undefined) =>
  p === undefined ? origin : `${origin}:${p}`;

describe('originAllowed: properties', () => {
  it('every subdomain of a wildcard pattern matches, at any depth', () => {
    fc.assert(
      fc.property(domain, fc.array(label, { minLength: 1, maxLength: 4 }), port, (d, sub, p) => {
        const pattern = normalizeOriginPattern(withPort(`https://*.${d}`, p));
        expect(pattern.ok).toBe(true);
        if (!pattern.ok) return;
        expect(originAllowed([pattern.value], withPort(`https://${sub.join('.')}.${d}`, p))).toBe(
          true,
        );
        // Same host, another scheme or port never matches.
        expect(originAllowed([pattern.value], withPort(`http://${sub.join('.')}.${d}`, p))).toBe(
          false,
        );
        const otherPort = (p ?? 443) === 8443 ? 8444 : 8443;
        expect(originAllowed([pattern.value], `https://${sub.join('.')}.${d}:${otherPort}`)).toBe(
          false,
        );
      }),
    );
  });

  it('no origin outside a pattern domain matches', () => {
    fc.assert(
      fc.property(domain, domain, fc.array(label, { maxLength: 3 }), (d, other, sub) => {
        fc.pre(other !== d && !other.endsWith(`.${d}`));
        const patterns = [`https://*.${d}`, `https://${d}`].map((raw) => {
          const result = normalizeOriginPattern(raw);
          if (!result.ok) throw new Error(`${raw}: ${result.message}`);
          return result.value;
        });
        const host = [...sub, other].join('.');
        // Suffix tricks: glued, appended, hyphenated.
        for (const candidate of [
          `https://${host}`,
          `https://${host}.${d}x`,
          `https://${d}.${other}`,
          `https://x-${d}`,
          `https://x${d}`,
        ]) {
          expect(originAllowed([patterns[0]!], candidate)).toBe(false);
        }
        expect(originAllowed(patterns, `https://${host}`)).toBe(false);
        // The wildcard never covers its apex; only the exact entry does.
        expect(originAllowed([patterns[0]!], `https://${d}`)).toBe(false);
        expect(originAllowed([patterns[1]!], `https://${d}`)).toBe(true);
      }),
    );
  });

  it('whatever string arrives, a match is a real https subdomain per the WHATWG parser', () => {
    const tricky = fc.constantFrom(
      'https://',
      'http://',
      '.example.com',
      'example.com',
      '@',
      '/',
      '\\',
      '%2e',
      ':',
      '443',
      '*',
      '.',
      'evil',
      '#',
      '?',
      '\u3002',
      '\t',
    );
    const input = fc.oneof(
      fc.array(tricky, { maxLength: 8 }).map((parts) => parts.join('')),
      fc.string({ unit: 'binary', maxLength: 40 }).map((tail) => `https://a.example.com${tail}`),
    );
    fc.assert(
      fc.property(input, (origin) => {
        if (!originAllowed(['https://*.example.com'], origin)) return;
        const url = new URL(origin);
        expect(url.protocol).toBe('https:');
        expect(url.port).toBe('');
        expect(url.hostname.replace(/\.$/, '').endsWith('.example.com')).toBe(true);
        expect(url.username + url.password + url.search + url.hash).toBe('');
      }),
      { numRuns: 1000 },
    );
  });

  it('normalization is idempotent', () => {
    const raw = fc
      .tuple(
        fc.constantFrom('https://', 'HTTPS://', 'https://*.', 'HtTpS://*.'),
        domain,
        fc.boolean(),
        port,
        fc.boolean(),
      )
      .map(
        ([prefix, d, upper, p, slash]) =>
          `${withPort(`${prefix}${upper ? d.toUpperCase() : d}`, p)}${slash ? '/' : ''}`,
      );
    fc.assert(
      fc.property(fc.oneof(raw, fc.string({ maxLength: 40 })), (input) => {
        const first = normalizeOriginPattern(input);
        if (!first.ok) return;
        expect(normalizeOriginPattern(first.value)).toEqual(first);
      }),
    );
  });

  it('a normalized exact pattern matches the same origin however it is written', () => {
    fc.assert(
      fc.property(domain, port, fc.boolean(), (d, p, upper) => {
        const pattern = normalizeOriginPattern(withPort(`https://${d}`, p));
        if (!pattern.ok) throw new Error(pattern.message);
        const origin = withPort(`https://${upper ? d.toUpperCase() : d}`, p);
        expect(originAllowed([pattern.value], origin)).toBe(true);
      }),
    );
  });
});
