import type { CSSProperties } from 'react';
import type { BridgeContextValue } from '../provider/bridge-provider';
import { cx } from './cx';

/**
 * Class, color scheme and theme properties of a component's root (or portalled) element.
 * `style` wins over the theme's properties: the host's own `style`, or for a portalled dialog
 * the theme it copies from the element that opened it.
 */
export function rootProps(
  context: BridgeContextValue,
  part: string,
  unstyled: boolean | undefined,
  className?: string,
  style?: CSSProperties,
) {
  const { colorScheme, style: theme } = context.theme;
  return {
    className: cx(!(unstyled ?? context.unstyled) && 'bk', `bk-${part}`, className),
    'data-bk-theme': colorScheme,
    ...(theme || style ? { style: { ...theme, ...style } } : {}),
  };
}
