import { checkOriginPattern, originPatternMessages } from '@bridgekit/contract/origin-pattern';
import { describe, expect, it } from 'vitest';
import { normalizeOriginPattern } from '../../src/embed-origins';

// The kit's origins editor runs @bridgekit/contract's checkOriginPattern without the
// public-suffix list; the bridge runs the same function with it. Both must agree on everything
// but the multi-label public suffixes only the list knows.

const SAME = [
  'https://example.com',
  'HTTPS://App.Example.COM:443/',
  'https://*.example.com:8443',
  'https://bücher.example',
  'http://localhost:3000',
  'http://127.0.0.1',
  'https://localhost',
  '',
  'example.com',
  'ftp://example.com',
  'https://',
  'https://a.*.example.com',
  'https://*.com',
  'https://com',
  'https://intranet',
  'https://*.example',
  'https://*.localhost',
  'http://example.com',
  'https://1.2.3.4',
  'http://0x7f.0.0.1',
  'https://[::1]',
  'https://example.com/path',
  'https://example.com?q',
  'https://example.com#f',
  'https://user@example.com',
  'https://example.com:0',
  'https://exa mple.com',
  'https://ex%61mple.com',
  'https://ex\\ample.com',
  'https://ex_ample.com',
  `https://${'a'.repeat(290)}.com`,
];

describe('the origin rule the kit and the bridge share', () => {
  it.each(SAME)('%j: the kit (no suffix list) answers as the bridge does', (input) => {
    const kit = checkOriginPattern(input);
    const bridge = normalizeOriginPattern(input);
    expect(kit.ok ? kit : { ok: false, message: kit.message }).toEqual(bridge);
  });

  it('leaves multi-label public suffixes to the bridge, which reports them by entry', () => {
    expect(checkOriginPattern('https://*.co.uk')).toEqual({ ok: true, value: 'https://*.co.uk' });
    expect(normalizeOriginPattern('https://*.co.uk')).toEqual({
      ok: false,
      message: 'A wildcard must not cover a public suffix such as *.com or *.co.uk',
    });
  });

  it('names each refusal by a code with the bridge’s message', () => {
    const refused = checkOriginPattern('https://example.com/path');
    expect(refused).toEqual({ ok: false, error: 'path', message: 'Must not contain a path' });
    expect(originPatternMessages.path).toBe('Must not contain a path');
  });
});
