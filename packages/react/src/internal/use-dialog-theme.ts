import {
  type CSSProperties,
  type Ref,
  type RefCallback,
  useCallback,
  useRef,
  useState,
} from 'react';
import { inheritedTheme } from '../provider/theme';

/**
 * For a dialog portalled to `body`: `anchor` goes on the element that opens it, `capture` runs
 * when it opens, and `style` is the theme in effect at the anchor (CSS variables of any of its
 * ancestors, its color scheme), which the dialog's roots apply. `forward` also receives the
 * anchor element (a ref the component forwards).
 */
export function useDialogTheme<T extends Element>(forward?: Ref<T>) {
  const node = useRef<T | null>(null);
  const [style, setStyle] = useState<CSSProperties>();
  const anchor: RefCallback<T> = useCallback(
    (element: T | null) => {
      node.current = element;
      if (typeof forward === 'function') forward(element);
      else if (forward) (forward as { current: T | null }).current = element;
    },
    [forward],
  );
  const capture = useCallback(() => {
    if (node.current) setStyle(inheritedTheme(node.current));
  }, []);
  return { anchor, capture, style };
}
