import type { DataSource } from '@bridgekit/contract';
import type { ReactNode } from 'react';
import { errorText } from '../internal/error-text';
import { DataSourceItem } from './data-source-item';
import type { ListContext } from './list-context';
import { useNow } from './source-status';
import type { DataSourcePages } from './use-data-sources';

interface DataSourceRowsProps {
  context: ListContext;
  unstyled: boolean | undefined;
  orgId: string;
  pages: DataSourcePages;
  canEdit: boolean;
  onEdit: (record: DataSource, opener: HTMLButtonElement) => void;
  /** The record whose editor is open, shown in place of its row's end. */
  editingId: string | null;
  editor: ReactNode;
  titleId: string;
}

/**
 * The rows, or the first page's loading, failure or emptiness; then "Load more". The editor of
 * a record opens inside its row, where the user clicked, not below a long list.
 */
export function DataSourceRows(props: DataSourceRowsProps) {
  const { context, pages, editingId, editor } = props;
  const { messages } = context;
  const now = useNow();
  const firstLoad = pages.items.length === 0;
  if (firstLoad && pages.status === 'loading') {
    return (
      <p className="bk-data-source-list__status" role="status">
        {messages.dataSourcesLoading}
      </p>
    );
  }
  if (firstLoad && pages.status === 'error') {
    return (
      <div className="bk-alert" role="alert">
        <p>{errorText(pages.error, messages, messages.dataSourcesLoadFailed)}</p>
        <button type="button" className="bk-button" onClick={pages.load}>
          {messages.retry}
        </button>
      </div>
    );
  }
  if (firstLoad) return <p className="bk-data-source-list__status">{messages.dataSourcesEmpty}</p>;

  return (
    <>
      <ul className="bk-data-source-list__list" aria-labelledby={props.titleId}>
        {pages.items.map((record) => (
          <DataSourceItem
            key={record.id}
            context={context}
            unstyled={props.unstyled}
            orgId={props.orgId}
            record={record}
            now={now}
            canEdit={props.canEdit}
            onEdit={props.onEdit}
            onRecord={pages.upsert}
            editor={editingId === record.id ? editor : undefined}
          />
        ))}
      </ul>
      {pages.status === 'error' && (
        <p className="bk-alert" role="alert">
          {errorText(pages.error, messages, messages.dataSourcesLoadFailed)}
        </p>
      )}
      {pages.hasMore && (
        <button
          type="button"
          className="bk-button"
          onClick={pages.load}
          aria-disabled={pages.status === 'loading' || undefined}
        >
          {pages.status === 'loading' ? messages.loadingMore : messages.loadMore}
        </button>
      )}
    </>
  );
}
