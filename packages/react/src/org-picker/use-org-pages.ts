import type { BridgeClient } from '@bridgekit/client';
import type { Organization } from '@bridgekit/contract';
import { useCallback, useEffect, useRef, useState } from 'react';

export interface OrgPages {
  items: Organization[];
  hasMore: boolean;
  /** `loading` covers the first page and every next one; `items` tells them apart. */
  status: 'idle' | 'loading' | 'ready' | 'error';
  error: unknown;
  /** Fetches the next page; ignored while one is in flight or when none is left. */
  load: () => void;
}

type PageState = Omit<OrgPages, 'load'> & { cursor: string | null };
const INITIAL: PageState = { items: [], hasMore: true, status: 'idle', error: null, cursor: null };

/** Cursor pagination over `listOrganizations`; pages survive closing the picker. */
export function useOrgPages(client: BridgeClient, pageSize: number): OrgPages {
  const [state, setState] = useState(INITIAL);
  const latest = useRef(state);
  latest.current = state;
  const inFlight = useRef<AbortController | null>(null);

  // A new client (another session or base URL) sees other organizations: start over.
  // biome-ignore lint/correctness/useExhaustiveDependencies: `client` is what triggers the reset.
  useEffect(() => {
    setState(INITIAL);
    return () => {
      inFlight.current?.abort();
      inFlight.current = null;
    };
  }, [client]);

  const load = useCallback(() => {
    const { cursor, hasMore } = latest.current;
    if (inFlight.current || !hasMore) return;
    const controller = new AbortController();
    inFlight.current = controller;
    setState((s) => ({ ...s, status: 'loading', error: null }));
    client
      .listOrganizations({
        query: { limit: String(pageSize), ...(cursor ? { cursor } : {}) },
        signal: controller.signal,
      })
      .then(
        (page) =>
          setState((s) => ({
            items: [...s.items, ...page.data],
            hasMore: page.pagination.hasMore,
            cursor: page.pagination.nextCursor,
            status: 'ready',
            error: null,
          })),
        (error: unknown) => {
          if (!controller.signal.aborted) setState((s) => ({ ...s, status: 'error', error }));
        },
      )
      .finally(() => {
        if (inFlight.current === controller) inFlight.current = null;
      });
  }, [client, pageSize]);

  return {
    items: state.items,
    hasMore: state.hasMore,
    status: state.status,
    error: state.error,
    load,
  };
}
