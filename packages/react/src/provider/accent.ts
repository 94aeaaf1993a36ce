/**
 * Readable colours from a host's brand accent (WCAG 2 contrast): the text on it, and a variant
 * for the dark palette, which an accent chosen for light pages often fails (`#0f766e` on the
 * dark background is 3.46:1). Small on purpose: it ships with every page that has a provider.
 */

/** The palettes' backgrounds (theme.css: --_bk-scheme-bg). */
export const LIGHT_BG = '#ffffff';
export const DARK_BG = '#0d1117';
/** WCAG AA for text: links and button labels are text. */
export const MIN_CONTRAST = 4.5;

type Rgb = number[];

/** `#rgb` or `#rrggbb` as [r, g, b]; undefined for any other syntax. */
export function parseColour(colour: string): Rgb | undefined {
  const hex = /^#([\da-f]{3}){1,2}$/i.test(colour) ? colour.slice(1) : '';
  const full = hex.length === 3 ? hex.replace(/./g, '$&$&') : hex;
  return full ? [0, 2, 4].map((i) => Number.parseInt(full.slice(i, i + 2), 16)) : undefined;
}

const toHex = (rgb: Rgb) => `#${rgb.map((c) => c.toString(16).padStart(2, '0')).join('')}`;

const luminance = (rgb: Rgb) =>
  rgb.reduce((sum, c, i) => {
    const s = c / 255;
    const linear = s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    return sum + linear * ([0.2126, 0.7152, 0.0722][i] ?? 0);
  }, 0);

/** The WCAG contrast ratio of two colours, 1 to 21. */
export function contrast(a: Rgb, b: Rgb): number {
  const [x, y] = [luminance(a), luminance(b)];
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}

/** White or black, whichever reads better on `rgb` (one of them always reaches 4.5:1). */
export const textOn = (rgb: Rgb) =>
  contrast(rgb, [255, 255, 255]) < contrast(rgb, [0, 0, 0]) ? '#000000' : '#ffffff';

/** Accents already warned about: a provider re-rendering does not repeat the warning. */
const warned = new Set<string>();

export interface AccentPair {
  light: string;
  lightText: string;
  dark: string;
  darkText: string;
}

/**
 * The accent for each palette and the text on each. Light pages use the accent as given; one
 * that cannot be read on the light background (below 4.5:1) is refused, with a warning naming
 * its contrast, and the kit keeps its default accent. Dark pages get it mixed toward white, in
 * 5% steps, until it reads on the dark background. `undefined` for a colour this does not
 * read (a name, rgb(), oklch(), var()): the host's value is then used as given in both.
 */
export function deriveAccent(accent: string): AccentPair | undefined {
  const rgb = parseColour(accent);
  if (!rgb) return undefined;
  const onLight = contrast(rgb, [255, 255, 255]);
  if (onLight < MIN_CONTRAST) {
    if (!warned.has(accent)) {
      warned.add(accent);
      console.warn(
        `Bridgekit: theme.accent ${accent} has a contrast of ${onLight.toFixed(2)}:1 on the light background ${LIGHT_BG} (text needs ${MIN_CONTRAST}:1); the kit keeps its default accent.`,
      );
    }
    return undefined;
  }
  let dark = rgb;
  for (let t = 1; contrast(dark, [13, 17, 23]) < MIN_CONTRAST; t++) {
    dark = rgb.map((c) => Math.round(c + ((255 - c) * t) / 20));
  }
  return { light: toHex(rgb), lightText: textOn(rgb), dark: toHex(dark), darkText: textOn(dark) };
}
