import { act, cleanup, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { type CursorPage, type PagesState, useCursorPages } from './use-cursor-pages';

afterEach(cleanup);

type Item = { id: string };
const INITIAL: PagesState<Item, 'idle'> = {
  items: [],
  hasMore: true,
  status: 'idle',
  error: null,
  cursor: null,
};

describe('useCursorPages', () => {
  it('starts the next load from the page just received, even before React re-renders', async () => {
    const cursors: (string | null)[] = [];
    const pending: ((page: CursorPage<Item>) => void)[] = [];
    const fetchPage = (cursor: string | null) => {
      cursors.push(cursor);
      return new Promise<CursorPage<Item>>((resolve) => pending.push(resolve));
    };
    const { result } = renderHook(() => useCursorPages(fetchPage, INITIAL));

    act(() => result.current.pages.load());
    // The first page arrives; a second load is asked for in the same turn, as a keyboard
    // handler and a scroll sentinel can, before any re-render.
    const received = Promise.resolve().then(() =>
      pending[0]?.({ data: [{ id: 'a' }], pagination: { nextCursor: 'c1', hasMore: true } }),
    );
    await received;
    // Microtasks only: the page's handlers run, React's re-render (a macrotask) has not yet.
    for (let i = 0; i < 5; i++) await Promise.resolve();
    result.current.pages.load();

    expect(cursors).toEqual([null, 'c1']);
    await act(async () => {
      pending[1]?.({ data: [{ id: 'b' }], pagination: { nextCursor: null, hasMore: false } });
    });
    expect(result.current.pages.items.map((item) => item.id)).toEqual(['a', 'b']);
    result.current.pages.load(); // nothing left: no request
    expect(cursors).toHaveLength(2);
  });
});
