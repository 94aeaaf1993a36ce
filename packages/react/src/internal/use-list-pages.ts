import { useCallback, useEffect } from 'react';
import { type CursorPage, type Pages, useCursorPages } from './use-cursor-pages';

/**
 * `loading` covers the first page and every next one (`items` tells them apart); `load` asks
 * for the next page, or the first one again after an error.
 */
export interface ListPages<T> extends Pages<T, never> {
  /** Puts a created or updated record in the list (in place, or appended). */
  upsert: (record: T) => void;
  remove: (id: string) => void;
}

/**
 * A keyset-paginated list whose first page loads on mount, kept in step with the caller's
 * writes. `fetchPage` should be memoized; a new one starts over.
 */
export function useListPages<T extends { id: string }>(
  fetchPage: (cursor: string | null, signal: AbortSignal) => Promise<CursorPage<T>>,
): ListPages<T> {
  const { pages, setState, abort } = useCursorPages<T, never>(fetchPage, {
    items: [],
    hasMore: true,
    cursor: null,
    status: 'loading',
    error: null,
  });

  const { load } = pages;
  useEffect(() => {
    load();
    return abort;
  }, [load, abort]);

  const upsert = useCallback(
    (record: T) => {
      setState((s) => {
        const at = s.items.findIndex((item) => item.id === record.id);
        if (at === -1) return { ...s, items: [...s.items, record] };
        const items = [...s.items];
        items[at] = record;
        return { ...s, items };
      });
    },
    [setState],
  );

  const remove = useCallback(
    (id: string) => {
      setState((s) => ({ ...s, items: s.items.filter((item) => item.id !== id) }));
    },
    [setState],
  );

  return { ...pages, upsert, remove };
}
