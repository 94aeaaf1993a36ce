import type { BridgeClient } from '@bridgekit/client';
import type { Organization } from '@bridgekit/contract';
import { useCallback, useEffect } from 'react';
import { type Pages, type PagesState, useCursorPages } from '../internal/use-cursor-pages';

/**
 * `status` is `idle` until the picker first opens; `loading` covers the first page and every
 * next one (`items` tells them apart). `load` is ignored while a page is in flight or when
 * none is left.
 */
export type OrgPages = Pages<Organization, 'idle'>;

const INITIAL: PagesState<Organization, 'idle'> = {
  items: [],
  hasMore: true,
  status: 'idle',
  error: null,
  cursor: null,
};

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
  const { pages, setState, abort } = useCursorPages(fetchPage, INITIAL);

  // A new client (another session or base URL) sees other organizations: start over.
  // biome-ignore lint/correctness/useExhaustiveDependencies: `client` is what triggers the reset.
  useEffect(() => {
    setState(INITIAL);
    return abort;
  }, [client]);

  return pages;
}
