import type { BridgeContextValue } from '../provider/bridge-provider';
import { cx } from './cx';

/** Class and theme attributes of a component's root (or portalled) element. */
export function rootProps(
  context: BridgeContextValue,
  part: string,
  unstyled: boolean | undefined,
  className?: string,
) {
  return {
    className: cx(!(unstyled ?? context.unstyled) && 'bk', `bk-${part}`, className),
    'data-bk-theme': context.theme,
  };
}
