/**
 * Readable colours from a host's brand accent (WCAG 2 contrast): the text on it, and a variant
 * for the dark palette, which the accent given for light pages often fails (`#0f766e` on the
 * dark background is 3.45:1).
 */

/** The palettes' backgrounds (theme.css: --_bk-scheme-bg). */
export const LIGHT_BG = '#ffffff';
export const DARK_BG = '#0d1117';
/** WCAG AA for text: links and button labels are text. */
export const MIN_CONTRAST = 4.5;

type Rgb = [number, number, number];

/** `#rgb`, `#rrggbb` or `rgb(r g b)` / `rgb(r, g, b)`; anything else is not ours to read. */
export function parseColour(colour: string): Rgb | undefined {
  const value = colour.trim().toLowerCase();
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/.exec(value)?.[1];
  if (hex) {
    const full = hex.length === 3 ? hex.replace(/./g, '$&$&') : hex;
    return [0, 2, 4].map((i) => Number.parseInt(full.slice(i, i + 2), 16)) as Rgb;
  }
  const rgb = /^rgb\(\s*(\d+)[\s,]+(\d+)[\s,]+(\d+)\s*\)$/.exec(value);
  return rgb ? ([rgb[1], rgb[2], rgb[3]].map(Number) as Rgb) : undefined;
}

const toHex = (rgb: Rgb) =>
  `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;

function luminance(rgb: Rgb): number {
  const [r, g, b] = rgb.map((c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as Rgb;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The WCAG contrast ratio of two colours, 1 to 21. */
export function contrast(a: Rgb, b: Rgb): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** White or black, whichever reads better on `rgb` (one of them always reaches 4.5:1). */
export const textOn = (rgb: Rgb) =>
  contrast(rgb, [255, 255, 255]) >= contrast(rgb, [0, 0, 0]) ? '#ffffff' : '#000000';

/** `rgb` mixed toward white in 5% steps until it reads on `bg` (white always does on ours). */
function lightenFor(rgb: Rgb, bg: Rgb): Rgb {
  let mixed = rgb;
  for (let t = 0.05; contrast(mixed, bg) < MIN_CONTRAST && t <= 1; t += 0.05) {
    mixed = rgb.map((c) => Math.round(c + (255 - c) * t)) as Rgb;
  }
  return mixed;
}

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
 * its contrast, and the kit keeps its default accent. Dark pages get it lightened until it
 * reads on the dark background. `undefined` for a colour this cannot read (a name, oklch(),
 * var()): the host's value is then used as given in both palettes.
 */
export function deriveAccent(accent: string): AccentPair | undefined {
  const rgb = parseColour(accent);
  if (!rgb) return undefined;
  const light = parseColour(LIGHT_BG) as Rgb;
  const onLight = contrast(rgb, light);
  if (onLight < MIN_CONTRAST) {
    if (warned.has(accent)) return undefined;
    warned.add(accent);
    console.warn(
      `Bridgekit: theme.accent ${accent} has a contrast of ${round2(onLight)}:1 on the light background ${LIGHT_BG} (links and buttons need ${MIN_CONTRAST}:1); the kit keeps its default accent. Pick a darker accent.`,
    );
    return undefined;
  }
  const dark = lightenFor(rgb, parseColour(DARK_BG) as Rgb);
  return { light: toHex(rgb), lightText: textOn(rgb), dark: toHex(dark), darkText: textOn(dark) };
}
