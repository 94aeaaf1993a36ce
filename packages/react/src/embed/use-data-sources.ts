import type { BridgeClient } from '@bridgekit/client';
import type { DataSource } from '@bridgekit/contract';
import { useCallback, useEffect, useRef, useState } from 'react';

const PAGE_SIZE = 50;

export interface DataSourcePages {
  items: DataSource[];
  hasMore: boolean;
  /** `loading` covers the first page and every next one; `items` tells them apart. */
  status: 'loading' | 'ready' | 'error';
  error: unknown;
  /** The next page, or the first one again after an error. */
  load: () => void;
  /** Puts a created or updated record in the list (in place, or appended). */
  upsert: (record: DataSource) => void;
  remove: (id: string) => void;
}

interface State {
  items: DataSource[];
  hasMore: boolean;
  cursor: string | null;
  status: DataSourcePages['status'];
  error: unknown;
}

/** The organization's data sources, keyset-paginated, kept in step with the form's saves. */
export function useDataSources(client: BridgeClient, orgId: string): DataSourcePages {
  const [state, setState] = useState<State>({
    items: [],
    hasMore: true,
    cursor: null,
    status: 'loading',
    error: null,
  });
  const latest = useRef(state);
  latest.current = state;
  const inFlight = useRef<AbortController | null>(null);

  const load = useCallback(() => {
    const { cursor, hasMore } = latest.current;
    if (inFlight.current || !hasMore) return;
    const controller = new AbortController();
    inFlight.current = controller;
    setState((s) => ({ ...s, status: 'loading', error: null }));
    client
      .listDataSources({
        params: { orgId },
        query: { limit: String(PAGE_SIZE), ...(cursor ? { cursor } : {}) },
        signal: controller.signal,
      })
      .then(
        (page) =>
          setState((s) => {
            // A record saved while this page was in flight is already listed.
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
  }, [client, orgId]);

  useEffect(() => {
    load();
    return () => {
      inFlight.current?.abort();
      inFlight.current = null;
    };
  }, [load]);

  const upsert = useCallback((record: DataSource) => {
    setState((s) => {
      const at = s.items.findIndex((item) => item.id === record.id);
      if (at === -1) return { ...s, items: [...s.items, record] };
      const items = [...s.items];
      items[at] = record;
      return { ...s, items };
    });
  }, []);

  const remove = useCallback((id: string) => {
    setState((s) => ({ ...s, items: s.items.filter((item) => item.id !== id) }));
  }, []);

  return { ...state, load, upsert, remove };
}
