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

/**
 * Keyset pagination for a list endpoint: `load` fetches the next page (ignored while one is
 * in flight or when none is left), appends what is not listed yet, and keeps an aborted
 * request's error out of the state. `fetchPage` should be memoized; a new one means a new
 * `load`.
 */
export function useCursorPages<T extends { id: string }, Status extends string>(
  fetchPage: (cursor: string | null, signal: AbortSignal) => Promise<CursorPage<T>>,
  initial: PagesState<T, Status>,
): {
  state: PagesState<T, Status>;
  setState: Dispatch<SetStateAction<PagesState<T, Status>>>;
  load: () => void;
  inFlight: { current: AbortController | null };
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
        (page) =>
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
          }),
        (error: unknown) => {
          if (!controller.signal.aborted) setState((s) => ({ ...s, status: 'error', error }));
        },
      )
      .finally(() => {
        if (inFlight.current === controller) inFlight.current = null;
      });
  }, [fetchPage]);

  return { state, setState, load, inFlight };
}
