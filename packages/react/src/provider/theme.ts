import type { CSSProperties } from 'react';
import { deriveAccent, parseColour } from './accent';

/** `auto` follows the system (`prefers-color-scheme`). */
export type ColorScheme = 'light' | 'dark' | 'auto';

/** Spacing and control heights: `compact` 0.85×, `standard` 1×, `comfortable` 1.15×. */
export type Density = 'compact' | 'standard' | 'comfortable';

/** What `BridgeProvider`'s `theme` sets on every element the kit renders, dialogs included. */
export interface Theme {
  /**
   * `data-bk-theme` on every root. Without it the kit follows a `data-bk-theme` on any
   * ancestor (e.g. `<html>`), and is light without one.
   */
  colorScheme?: ColorScheme | undefined;
  /**
   * Buttons, links, focus rings, the selected option. A hex accent is used as given
   * on light pages (refused, with a console warning naming its contrast, below 4.5:1 on white)
   * and lightened for the dark palette until it reads there; the text on it is white or black,
   * whichever reads. Any other colour syntax is used as given in both (`--bk-color-accent`).
   */
  accent?: string | undefined;
  /** Text on the accent (`--bk-color-accent-text`), instead of the derived one. */
  accentText?: string | undefined;
  /** Corner radius; a number is in px (`--bk-radius`). */
  radius?: string | number | undefined;
  /** Font stack (`--bk-font`); `inherit` takes the font of the element the kit sits in. */
  font?: string | undefined;
  /** Base size; a number is in px (`--bk-font-size`). */
  fontSize?: string | number | undefined;
  /** A name, or a factor (`--bk-density`). */
  density?: Density | number | undefined;
  /** Any other public property, e.g. `{ '--bk-color-danger': '#b00020' }`. */
  vars?: Record<`--bk-${string}`, string> | undefined;
}

/** The theme as the roots apply it: `data-bk-theme`, and the custom properties to set. */
export interface ResolvedTheme {
  colorScheme: ColorScheme | undefined;
  style: CSSProperties | undefined;
}

/** The public custom properties, which portalled dialogs copy from the element that opened them. */
export const THEME_VARS = [
  '--bk-density',
  '--bk-font',
  '--bk-font-size',
  '--bk-radius',
  '--bk-space',
  '--bk-shadow',
  '--bk-color-bg',
  '--bk-color-surface',
  '--bk-color-text',
  '--bk-color-muted',
  '--bk-color-border',
  '--bk-color-border-subtle',
  '--bk-color-accent',
  '--bk-color-accent-text',
  '--bk-color-highlight',
  '--bk-color-focus',
  '--bk-color-danger',
  '--bk-color-danger-text',
  '--bk-color-danger-surface',
  '--bk-color-success',
  '--bk-color-success-surface',
  '--bk-color-overlay',
  '--bk-color-skeleton',
];

/**
 * The palette theme.css picked for an element (by `data-bk-theme` on it or an ancestor), which
 * a portalled dialog copies too: it no longer has that ancestor.
 */
const SCHEME_VARS = [
  '--_bk-scheme-bg',
  '--_bk-scheme-surface',
  '--_bk-scheme-text',
  '--_bk-scheme-muted',
  '--_bk-scheme-border',
  '--_bk-scheme-border-subtle',
  '--_bk-scheme-accent',
  '--_bk-scheme-accent-text',
  '--_bk-scheme-danger',
  '--_bk-scheme-danger-text',
  '--_bk-scheme-danger-surface',
  '--_bk-scheme-success',
  '--_bk-scheme-success-surface',
  '--_bk-scheme-overlay',
  '--_bk-scheme-skeleton',
  '--_bk-scheme-shadow-colour',
];

const DENSITY: Record<Density, number> = { compact: 0.85, standard: 1, comfortable: 1.15 };
const px = (value: string | number) => (typeof value === 'number' ? `${value}px` : value);

/** The accent's custom properties: per palette when it can be derived (accent.ts). */
function accentVars(accent: string | undefined): Record<string, string | undefined> {
  if (accent === undefined) return {};
  const pair = deriveAccent(accent);
  if (!pair) return { '--bk-color-accent': parseColour(accent) ? undefined : accent };
  return {
    '--_bk-accent-light': pair.light,
    '--_bk-accent-text-light': pair.lightText,
    '--_bk-accent-dark': pair.dark,
    '--_bk-accent-text-dark': pair.darkText,
  };
}

export function resolveTheme(theme: ColorScheme | Theme | undefined): ResolvedTheme {
  if (theme === undefined || typeof theme === 'string') {
    return { colorScheme: theme, style: undefined };
  }
  const vars: Record<string, string | undefined> = {
    ...accentVars(theme.accent),
    '--bk-color-accent-text': theme.accentText,
    '--bk-radius': theme.radius === undefined ? undefined : px(theme.radius),
    // `inherit` in a custom property would inherit the property, not the page's font.
    '--bk-font': theme.font === 'inherit' ? undefined : theme.font,
    fontFamily: theme.font === 'inherit' ? 'inherit' : undefined,
    '--bk-font-size': theme.fontSize === undefined ? undefined : px(theme.fontSize),
    '--bk-density':
      theme.density === undefined
        ? undefined
        : String(typeof theme.density === 'number' ? theme.density : DENSITY[theme.density]),
    ...theme.vars,
  };
  const set = Object.entries(vars).filter(([, value]) => value !== undefined);
  return {
    colorScheme: theme.colorScheme,
    style: set.length > 0 ? (Object.fromEntries(set) as CSSProperties) : undefined,
  };
}

/**
 * The theme in effect at `anchor` (custom properties from any ancestor, its palette and color
 * scheme), as a style for a dialog portalled to `body`, which no longer has those ancestors.
 */
export function inheritedTheme(anchor: Element): CSSProperties {
  const computed = getComputedStyle(anchor);
  const style: Record<string, string> = { colorScheme: computed.colorScheme };
  for (const name of [...THEME_VARS, ...SCHEME_VARS]) {
    const value = computed.getPropertyValue(name).trim();
    if (value) style[name] = value;
  }
  return style as CSSProperties;
}
