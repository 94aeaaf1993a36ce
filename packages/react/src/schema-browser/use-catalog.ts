import type { BridgeClient } from '@bridgekit/client';
import type { CatalogTable } from '@bridgekit/contract';
import { useCallback, useEffect, useRef, useState } from 'react';

export interface Catalog {
  tables: CatalogTable[];
  cursor: string | null;
  hasMore: boolean;
  readAt: string | null;
  tableCount: number;
  truncated: boolean;
  status: 'loading' | 'ready' | 'error';
  error: unknown;
}

const EMPTY: Catalog = {
  tables: [],
  cursor: null,
  hasMore: true,
  readAt: null,
  tableCount: 0,
  truncated: false,
  status: 'loading',
  error: null,
};

/**
 * `GET …/schema` a page at a time: `more` reads the next page (ignored while one is in flight
 * or none is left); starts over when `version` changes (a sync finished).
 */
export function useCatalog(
  client: BridgeClient,
  orgId: string,
  id: string,
  pageSize: number,
  version: string | null | undefined,
) {
  const [catalog, setCatalog] = useState(EMPTY);
  const latest = useRef(catalog);
  latest.current = catalog;
  const controller = useRef<AbortController | null>(null);
  const inFlight = useRef(false);

  const load = useCallback(
    (fresh: boolean) => {
      const { cursor, hasMore } = fresh ? EMPTY : latest.current;
      if (!hasMore || (inFlight.current && !fresh)) return;
      controller.current?.abort();
      const current = new AbortController();
      controller.current = current;
      inFlight.current = true;
      setCatalog((c) => ({ ...(fresh ? EMPTY : c), status: 'loading', error: null }));
      client
        .getDataSourceSchema({
          params: { orgId, id },
          query: { limit: String(pageSize), ...(cursor ? { cursor } : {}) },
          signal: current.signal,
        })
        .then(
          ({ data, pagination }) => {
            // Before the state changes: its effects may ask for the next page at once.
            inFlight.current = false;
            const next: Catalog = {
              tables: [...(fresh ? [] : latest.current.tables), ...data.tables],
              cursor: pagination.nextCursor,
              hasMore: pagination.hasMore,
              readAt: data.readAt,
              tableCount: data.tableCount,
              truncated: data.truncated,
              status: 'ready',
              error: null,
            };
            // A `more` before React re-renders must start from this page's cursor.
            latest.current = next;
            setCatalog(next);
          },
          (error: unknown) => {
            if (current.signal.aborted) return;
            inFlight.current = false;
            setCatalog((c) => ({ ...c, status: 'error', error }));
          },
        );
    },
    [client, orgId, id, pageSize],
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new version reads the catalog again.
  useEffect(() => {
    load(true);
    return () => controller.current?.abort();
  }, [load, version]);

  return {
    catalog,
    more: useCallback(() => load(false), [load]),
    retry: () => load(latest.current.tables.length === 0),
  };
}
