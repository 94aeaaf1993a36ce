import type { BridgeClient } from '@bridgekit/client';
import type { DataSource } from '@bridgekit/contract';
import { useCallback } from 'react';
import { type ListPages, useListPages } from '../internal/use-list-pages';

export type DataSourcePages = ListPages<DataSource>;

/** The organization's data sources, keyset-paginated, kept in step with the form's saves. */
export function useDataSources(
  client: BridgeClient,
  orgId: string,
  pageSize: number,
): DataSourcePages {
  const fetchPage = useCallback(
    (cursor: string | null, signal: AbortSignal) =>
      client.listDataSources({
        params: { orgId },
        query: { limit: String(pageSize), ...(cursor ? { cursor } : {}) },
        signal,
      }),
    [client, orgId, pageSize],
  );
  return useListPages<DataSource>(fetchPage);
}
