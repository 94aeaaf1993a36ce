import {
  type ComponentPropsWithoutRef,
  forwardRef,
  useCallback,
  useEffect,
  useId,
  useMemo,
  useState,
} from 'react';
import { errorText } from '../internal/error-text';
import { rootProps } from '../internal/root-props';
import { useComponentContext } from '../internal/use-component-context';
import { treeRows } from './rows';
import { schemaBrowserMessages } from './schema-browser-messages';
import { SchemaTree } from './schema-tree';
import { useCatalog } from './use-catalog';

export type SchemaBrowserProps = Omit<ComponentPropsWithoutRef<'div'>, 'children'> & {
  orgId: string;
  dataSourceId: string;
  /** Names the tree for screen readers ("Tables of Warehouse"). */
  dataSourceName?: string | undefined;
  /**
   * The data source's `lastSuccessfulSyncAt`: a new value reads the catalog again (a sync has
   * finished since).
   */
  version?: string | null | undefined;
  /** Tables per request (1–100). Default 100. */
  pageSize?: number | undefined;
  /** Height of the scrolling tree in px. Default 320. */
  height?: number | undefined;
  /** Leave out the kit's styles for this component. */
  unstyled?: boolean | undefined;
};

/**
 * A data source's synced schemas, tables, views and columns, as the last successful sync read
 * them: a searchable tree (table and column names), virtualised so that 10,000 tables stay
 * fast. Pages load as the user scrolls; a search reads the rest of the catalog first.
 *
 * @example
 * <SchemaBrowser orgId={orgId} dataSourceId={dataSource.id} dataSourceName={dataSource.displayName} />
 */
export const SchemaBrowser = /* @__PURE__ */ forwardRef<HTMLDivElement, SchemaBrowserProps>(
  function SchemaBrowser(props, ref) {
    const {
      orgId,
      dataSourceId,
      dataSourceName,
      version,
      pageSize = 100,
      height = 320,
      unstyled,
      className,
      ...rest
    } = props;
    const context = useComponentContext('SchemaBrowser', schemaBrowserMessages);
    const { client, messages } = context;
    const { catalog, more, retry } = useCatalog(client, orgId, dataSourceId, pageSize, version);
    const [query, setQuery] = useState('');
    const [toggled, setToggled] = useState<ReadonlySet<string>>(() => new Set());
    const searchId = useId();
    const { rows, matches } = useMemo(
      () => treeRows(catalog.tables, query, toggled),
      [catalog.tables, query, toggled],
    );
    const searching = query.trim() !== '';
    const { status, tables } = catalog;

    // A search covers the whole catalog: read the pages not loaded yet, one after another.
    // Keyed by the count too: a fast page's loading and ready states may share one render.
    const loaded = tables.length;
    useEffect(() => {
      if (searching && status === 'ready' && catalog.hasMore && loaded > 0) more();
    }, [searching, status, catalog.hasMore, loaded, more]);

    const onToggle = useCallback((key: string) => {
      setToggled((previous) => {
        const next = new Set(previous);
        if (!next.delete(key)) next.add(key);
        return next;
      });
    }, []);
    const onNearEnd = useCallback(() => {
      if (status === 'ready' && catalog.hasMore) more();
    }, [status, catalog.hasMore, more]);

    const state = tables.length === 0 && status !== 'ready' ? status : 'ready';
    const label = dataSourceName ? messages.schemaLabel(dataSourceName) : messages.schemaLabelPlain;
    const neverSynced = status === 'ready' && catalog.readAt === null;
    return (
      <div
        {...rest}
        {...rootProps(context, 'schema-browser', unstyled, className, rest.style)}
        ref={ref}
        data-state={state}
        aria-busy={status === 'loading' || undefined}
      >
        {state === 'loading' && (
          <p className="bk-schema-browser__status" role="status">
            {messages.tablesLoading}
          </p>
        )}
        {status === 'error' && (
          <div className="bk-alert" role="alert">
            <p>{errorText(catalog.error, messages, messages.tablesLoadFailed)}</p>
            <button type="button" className="bk-button bk-button--small" onClick={retry}>
              {messages.retry}
            </button>
          </div>
        )}
        {neverSynced && <p className="bk-schema-browser__status">{messages.tablesNotSynced}</p>}
        {state === 'ready' && !neverSynced && catalog.tableCount === 0 && (
          <p className="bk-schema-browser__status">{messages.tablesEmpty}</p>
        )}
        {tables.length > 0 && (
          <>
            <div className="bk-schema-browser__bar">
              <label className="bk-visually-hidden" htmlFor={searchId}>
                {messages.schemaSearch}
              </label>
              <input
                id={searchId}
                type="search"
                className="bk-input bk-schema-browser__search"
                placeholder={messages.schemaSearchPlaceholder}
                value={query}
                onChange={(event) => setQuery(event.currentTarget.value)}
              />
              <p className="bk-schema-browser__summary" role="status">
                {summary(catalog, messages, searching, matches, query)}
              </p>
            </div>
            {catalog.truncated && (
              <p className="bk-schema-browser__status">{messages.tablesTruncated}</p>
            )}
            {rows.length > 0 && (
              <SchemaTree
                rows={rows}
                label={label}
                height={height}
                messages={messages}
                onToggle={onToggle}
                onNearEnd={onNearEnd}
              />
            )}
          </>
        )}
      </div>
    );
  },
);

/** "64 tables, read 2 hours ago", "Loaded 200 of 10000 tables…", "3 tables match". */
function summary(
  catalog: ReturnType<typeof useCatalog>['catalog'],
  messages: typeof schemaBrowserMessages,
  searching: boolean,
  matches: number,
  query: string,
) {
  const loaded = catalog.tables.length;
  if (searching && catalog.hasMore) return messages.tablesLoadingCount(loaded, catalog.tableCount);
  if (searching)
    return matches === 0 ? messages.schemaNoMatch(query.trim()) : messages.schemaMatches(matches);
  const when = catalog.readAt ? messages.relativeTime(catalog.readAt, Date.now()) : null;
  return messages.tablesSummary(catalog.tableCount, when);
}
