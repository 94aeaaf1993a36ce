import { type RefObject, useCallback, useState } from 'react';

/** Rows drawn above and below the viewport, so fast scrolling does not show gaps. */
const OVERSCAN = 8;

/**
 * Which of `count` fixed-height rows a scrolling viewport of `height` px draws: only those in
 * view (and a few around), whatever `count` is. `reveal` scrolls a row into view.
 */
export function useVirtualWindow(
  viewport: RefObject<HTMLElement | null>,
  count: number,
  rowHeight: number,
  height: number,
) {
  const [scrollTop, setScrollTop] = useState(0);
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - OVERSCAN);
  const last = Math.min(count, Math.ceil((scrollTop + height) / rowHeight) + OVERSCAN);
  const onScroll = useCallback(() => setScrollTop(viewport.current?.scrollTop ?? 0), [viewport]);
  const reveal = useCallback(
    (index: number) => {
      const element = viewport.current;
      if (!element) return;
      const top = index * rowHeight;
      let next = element.scrollTop;
      if (top < next) next = top;
      else if (top + rowHeight > next + height) next = top + rowHeight - height;
      if (next !== element.scrollTop) {
        element.scrollTop = next;
        setScrollTop(next);
      }
    },
    [viewport, rowHeight, height],
  );
  return { first, last, total: count * rowHeight, onScroll, reveal };
}
