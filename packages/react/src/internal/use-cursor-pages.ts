import { type Dispatch, type SetStateAction, useCallback, useRef, useState } from 'react';

export interface CursorPage<T> {
  data: T[];
  pagination: { nextCursor: string | null; hasMore: boolean };
}

export interface PagesState<T, Status extends string> {
  items: T[];
  hasMore: boolean;
  cursor: string | null;
  status: Status | 'loading' | 'ready' | 'error';
  error: unknown;
}

/** What a list component reads: the items so far, where paging stands, and `load`. */
export type Pages<T, Status extends string> = Omit<PagesState<T, Status>, 'cursor'> & {
  load: () => void;
};

/**
 * Keyset pagination for a list endpoint: `load` fetches the next page (ignored while one is
 * in flight or when none is left), appends what is not listed yet, and keeps an aborted
 * request's error out of the state; `abort` drops the request in flight (effect cleanup).
 * `fetchPage` should be memoized; a new one means a new `load`.
 */
export function useCursorPages<T extends { id: string }, Status extends string>(
  fetchPage: (cursor: string | null, signal: AbortSignal) => Promise<CursorPage<T>>,
  initial: PagesState<T, Status>,
): {
  pages: Pages<T, Status>;
  setState: Dispatch<SetStateAction<PagesState<T, Status>>>;
  abort: () => void;
} {
  const [state, setState] = useState(initial);
  const latest = useRef(state);
  latest.current = state;
  const inFlight = useRef<AbortController | null>(null);

  const load = useCallback(() => {
    const { cursor, hasMore } = latest.current;
    if (inFlight.current || !hasMore) return;
    const controller = new AbortController();
    inFlight.current = controller;
    setState((s) => ({ ...s, status: 'loading', error: null }));
    fetchPage(cursor, controller.signal)
      .then(
        (page) => {
          // A load that runs before React re-renders must already start from this page's
          // cursor, or it fetches the same page twice.
          const { nextCursor, hasMore } = page.pagination;
          latest.current = { ...latest.current, cursor: nextCursor, hasMore };
          setState((s) => {
            // A record saved while this page was in flight may be listed already.
            const known = new Set(s.items.map((item) => item.id));
            return {
              items: [...s.items, ...page.data.filter((item) => !known.has(item.id))],
              hasMore: page.pagination.hasMore,
              cursor: page.pagination.nextCursor,
              status: 'ready',
              error: null,
            };
          });
        },
        (error: unknown) => {
          if (!controller.signal.aborted) setState((s) => ({ ...s, status: 'error', error }));
        },
      )
      .finally(() => {
        if (inFlight.current === controller) inFlight.current = null;
      });
  }, [fetchPage]);

  const abort = useCallback(() => {
    inFlight.current?.abort();
    inFlight.current = null;
  }, []);

  const { items, hasMore, status, error } = state;
  return { pages: { items, hasMore, status, error, load }, setState, abort };
}
