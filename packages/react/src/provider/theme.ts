import type { CSSProperties } from 'react';

/** `auto` follows the system (`prefers-color-scheme`). */
export type ColorScheme = 'light' | 'dark' | 'auto';

/** Spacing and control heights: `compact` 0.85×, `standard` 1×, `comfortable` 1.15×. */
export type Density = 'compact' | 'standard' | 'comfortable';

/** What `BridgeProvider`'s `theme` sets on every element the kit renders, dialogs included. */
export interface Theme {
  /** Without it the kit follows the CSS `color-scheme` of the page (light by default). */
  colorScheme?: ColorScheme;
  /** Buttons, links, focus rings, the selected option (`--bk-color-accent`). */
  accent?: string;
  /** Text on the accent (`--bk-color-accent-text`). */
  accentText?: string;
  /** Corner radius; a number is in px (`--bk-radius`). */
  radius?: string | number;
  /** Font stack (`--bk-font`); `inherit` takes the page's. */
  font?: string;
  /** Base size; a number is in px (`--bk-font-size`). */
  fontSize?: string | number;
  /** A name, or a factor (`--bk-density`). */
  density?: Density | number;
  /** Any other public property, e.g. `{ '--bk-color-danger': '#b00020' }`. */
  vars?: Record<`--bk-${string}`, string>;
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

const DENSITY: Record<Density, number> = { compact: 0.85, standard: 1, comfortable: 1.15 };
const px = (value: string | number) => (typeof value === 'number' ? `${value}px` : value);

export function resolveTheme(theme: ColorScheme | Theme | undefined): ResolvedTheme {
  if (theme === undefined || typeof theme === 'string') {
    return { colorScheme: theme, style: undefined };
  }
  const vars: Record<string, string | undefined> = {
    '--bk-color-accent': theme.accent,
    '--bk-color-accent-text': theme.accentText,
    '--bk-radius': theme.radius === undefined ? undefined : px(theme.radius),
    '--bk-font': theme.font,
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
 * The theme in effect at `anchor` (custom properties from any ancestor, its color scheme), as a
 * style for a dialog portalled to `body`, which no longer has those ancestors.
 */
export function inheritedTheme(anchor: Element): CSSProperties {
  const computed = getComputedStyle(anchor);
  const style: Record<string, string> = { colorScheme: computed.colorScheme };
  for (const name of THEME_VARS) {
    const value = computed.getPropertyValue(name).trim();
    if (value) style[name] = value;
  }
  return style as CSSProperties;
}
