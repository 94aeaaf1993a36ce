import type { BridgeClient } from '@bridgekit/client';
import type { DataSource } from '@bridgekit/contract';
import { useCallback, useEffect } from 'react';
import { type Pages, useCursorPages } from '../internal/use-cursor-pages';

const PAGE_SIZE = 50;

/**
 * `loading` covers the first page and every next one (`items` tells them apart); `load` asks
 * for the next page, or the first one again after an error.
 */
export interface DataSourcePages extends Pages<DataSource, never> {
  /** Puts a created or updated record in the list (in place, or appended). */
  upsert: (record: DataSource) => void;
  remove: (id: string) => void;
}

/** The organization's data sources, keyset-paginated, kept in step with the form's saves. */
export function useDataSources(client: BridgeClient, orgId: string): DataSourcePages {
  const fetchPage = useCallback(
    (cursor: string | null, signal: AbortSignal) =>
      client.listDataSources({
        params: { orgId },
        query: { limit: String(PAGE_SIZE), ...(cursor ? { cursor } : {}) },
        signal,
      }),
    [client, orgId],
  );
  const { pages, setState, abort } = useCursorPages<DataSource, never>(fetchPage, {
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
    (record: DataSource) => {
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
