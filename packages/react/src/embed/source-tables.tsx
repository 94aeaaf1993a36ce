import type { BridgeClient } from '@bridgekit/client';
import type { CatalogTable } from '@bridgekit/contract';
import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { errorText } from '../internal/error-text';
import type { ProviderMessages } from '../provider/messages';
import type { EmbedMessages } from './embed-messages';

const PAGE_SIZE = 50;

interface Catalog {
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

/** `GET …/schema` a page at a time; starts over when `version` changes (a sync finished). */
function useCatalog(client: BridgeClient, orgId: string, id: string, version: string | null) {
  const [catalog, setCatalog] = useState(EMPTY);
  const latest = useRef(catalog);
  latest.current = catalog;
  const controller = useRef<AbortController | null>(null);

  const load = useCallback(
    (fresh: boolean) => {
      const { cursor, hasMore } = fresh ? EMPTY : latest.current;
      if (!hasMore) return;
      controller.current?.abort();
      const current = new AbortController();
      controller.current = current;
      setCatalog((c) => ({ ...(fresh ? EMPTY : c), status: 'loading', error: null }));
      client
        .getDataSourceSchema({
          params: { orgId, id },
          query: { limit: String(PAGE_SIZE), ...(cursor ? { cursor } : {}) },
          signal: current.signal,
        })
        .then(
          ({ data, pagination }) =>
            setCatalog((c) => ({
              tables: [...(fresh ? [] : c.tables), ...data.tables],
              cursor: pagination.nextCursor,
              hasMore: pagination.hasMore,
              readAt: data.readAt,
              tableCount: data.tableCount,
              truncated: data.truncated,
              status: 'ready',
              error: null,
            })),
          (error: unknown) => {
            if (!current.signal.aborted) setCatalog((c) => ({ ...c, status: 'error', error }));
          },
        );
    },
    [client, orgId, id],
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new version reads the catalog again.
  useEffect(() => {
    load(true);
    return () => controller.current?.abort();
  }, [load, version]);

  return {
    catalog,
    more: () => load(false),
    retry: () => load(latest.current.tables.length === 0),
  };
}

interface SourceTablesProps {
  client: BridgeClient;
  orgId: string;
  id: string;
  name: string;
  /** lastSuccessfulSyncAt: a newer one reads the catalog again. */
  version: string | null;
  now: number;
  messages: ProviderMessages;
  text: EmbedMessages;
}

/** The synced tables of one data source: a disclosure button, then a compact paginated list. */
export function SourceTables(props: SourceTablesProps) {
  const { name, text } = props;
  const [open, setOpen] = useState(false);
  const listId = useId();
  return (
    <div className="bk-tables">
      <button
        type="button"
        className="bk-button bk-button--small bk-tables__toggle"
        aria-expanded={open}
        aria-controls={open ? listId : undefined}
        aria-label={text.tablesOf(name)}
        onClick={() => setOpen(!open)}
      >
        {text.tables}
      </button>
      {open && <TableList {...props} listId={listId} />}
    </div>
  );
}

function TableList(props: SourceTablesProps & { listId: string }) {
  const { client, orgId, id, version, now, messages, text, listId } = props;
  const { catalog, more, retry } = useCatalog(client, orgId, id, version);
  const { tables, status } = catalog;
  return (
    <div id={listId} className="bk-tables__body" aria-busy={status === 'loading' || undefined}>
      {status === 'ready' && catalog.readAt && (
        <p className="bk-tables__summary">
          {text.tablesSummary(catalog.tableCount, text.relativeTime(catalog.readAt, now))}
        </p>
      )}
      {catalog.truncated && <p className="bk-tables__summary">{text.tablesTruncated}</p>}
      {status === 'ready' && tables.length === 0 && (
        <p className="bk-tables__summary">{text.tablesEmpty}</p>
      )}
      {tables.length > 0 && (
        <ul className="bk-tables__list">
          {tables.map((table) => (
            <li key={`${table.schema}.${table.name}`} className="bk-tables__item">
              <span className="bk-tables__name">
                {table.schema}.{table.name}
              </span>
              <span className="bk-tables__meta">
                {table.kind === 'VIEW' ? `${text.view} · ` : ''}
                {text.columns(table.columns.length)}
              </span>
            </li>
          ))}
        </ul>
      )}
      {status === 'loading' && (
        <p className="bk-tables__summary" role="status">
          {tables.length ? messages.loadingMore : text.tablesLoading}
        </p>
      )}
      {status === 'error' && (
        <div className="bk-alert" role="alert">
          <p>{errorText(catalog.error, messages, text.tablesLoadFailed)}</p>
          <button type="button" className="bk-button bk-button--small" onClick={retry}>
            {messages.retry}
          </button>
        </div>
      )}
      {status === 'ready' && catalog.hasMore && (
        <button type="button" className="bk-button bk-button--small" onClick={more}>
          {messages.loadMore}
        </button>
      )}
    </div>
  );
}
