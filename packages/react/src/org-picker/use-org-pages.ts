import type { BridgeClient } from '@bridgekit/client';
import type { Organization } from '@bridgekit/contract';
import { useCallback, useEffect } from 'react';
import { useCursorPages } from '../internal/use-cursor-pages';

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
  const fetchPage = useCallback(
    (cursor: string | null, signal: AbortSignal) =>
      client.listOrganizations({
        query: { limit: String(pageSize), ...(cursor ? { cursor } : {}) },
        signal,
      }),
    [client, pageSize],
  );
  const { state, setState, load, inFlight } = useCursorPages(fetchPage, INITIAL);

  // A new client (another session or base URL) sees other organizations: start over.
  // biome-ignore lint/correctness/useExhaustiveDependencies: `client` is what triggers the reset.
  useEffect(() => {
    setState(INITIAL);
    return () => {
      inFlight.current?.abort();
      inFlight.current = null;
    };
  }, [client]);

  return {
    items: state.items,
    hasMore: state.hasMore,
    status: state.status,
    error: state.error,
    load,
  };
}
