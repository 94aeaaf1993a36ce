import { afterEach, describe, expect, it, vi } from 'vitest';
import { contrast, DARK_BG, deriveAccent, LIGHT_BG, parseColour, textOn } from './accent';

afterEach(() => vi.restoreAllMocks());

const ratio = (a: string, b: string) =>
  Math.round(contrast(parseColour(a)!, parseColour(b)!) * 100) / 100;

describe('accent derivation', () => {
  it('measures WCAG contrast: the known pairs', () => {
    expect(ratio('#000000', '#ffffff')).toBe(21);
    expect(ratio('#0f766e', DARK_BG)).toBe(3.46);
    expect(ratio('#0f766e', LIGHT_BG)).toBe(5.47);
    expect(ratio('#777777', LIGHT_BG)).toBe(4.48);
  });

  it('reads #rgb and #rrggbb, and nothing else', () => {
    expect(parseColour('#0F766E')).toEqual([15, 118, 110]);
    expect(parseColour('#fff')).toEqual([255, 255, 255]);
    for (const other of [
      'teal',
      'rgb(190, 24, 93)',
      'oklch(50% 0.1 180)',
      'var(--brand)',
      '#12345',
    ]) {
      expect(parseColour(other), other).toBeUndefined();
    }
  });

  it('keeps #0f766e in light (white text, 5.47:1) and lightens it to #338b84 in dark (4.66:1)', () => {
    expect(deriveAccent('#0f766e')).toEqual({
      light: '#0f766e',
      lightText: '#ffffff',
      dark: '#338b84',
      darkText: '#000000',
    });
    expect(ratio('#338b84', DARK_BG)).toBe(4.66);
    expect(ratio('#338b84', '#000000')).toBe(5.17);
  });

  it('gives every accent a host is likely to pick 4.5:1 for its text and on both backgrounds', () => {
    for (const accent of ['#0a58ca', '#be185d', '#7c3aed', '#15803d', '#b45309', '#000000']) {
      const pair = deriveAccent(accent)!;
      expect(ratio(pair.light, LIGHT_BG), accent).toBeGreaterThanOrEqual(4.5);
      expect(ratio(pair.light, pair.lightText), accent).toBeGreaterThanOrEqual(4.5);
      expect(ratio(pair.dark, DARK_BG), accent).toBeGreaterThanOrEqual(4.5);
      expect(ratio(pair.dark, pair.darkText), accent).toBeGreaterThanOrEqual(4.5);
    }
    expect(deriveAccent('#15803d')?.dark).toBe('#2c8d50');
  });

  it('puts black on a light accent and white on a dark one', () => {
    expect(textOn([250, 204, 21])).toBe('#000000');
    expect(textOn([15, 118, 110])).toBe('#ffffff');
  });

  it('refuses an accent unreadable on the light background, warning once with its contrast', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(deriveAccent('#facc15')).toBeUndefined();
    expect(deriveAccent('#facc15')).toBeUndefined();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toContain(
      'theme.accent #facc15 has a contrast of 1.53:1 on white (under 4.5:1): default accent kept',
    );
    expect(warn.mock.calls[0]?.[0]).toContain('4.5:1');
    expect(deriveAccent('#777777')).toBeUndefined();
    expect(warn.mock.calls[1]?.[0]).toContain('4.48:1');
  });
});
