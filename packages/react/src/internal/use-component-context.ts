import { useMemo } from 'react';
import { type BridgeContextValue, useBridgeContext } from '../provider/bridge-provider';
import { type CoreMessages, withMessages } from '../provider/messages';

/** The provider's value with one component's own strings (`group`) under its overrides. */
export function useComponentContext<G extends object>(
  component: string,
  group: G,
): BridgeContextValue & { messages: CoreMessages & G } {
  const bridge = useBridgeContext(component);
  return useMemo(
    () => ({ ...bridge, messages: withMessages(bridge.messages, group) }),
    [bridge, group],
  );
}
