import type { DataSource } from '@bridgekit/contract';
import type { ReactNode } from 'react';
import { errorText } from '../internal/error-text';
import type { Messages } from '../provider/messages';
import type { EmbedMessages } from './embed-messages';
import type { DataSourcePages } from './use-data-sources';

interface DataSourceListProps {
  pages: DataSourcePages;
  /** Absent for members who may not edit. */
  onEdit?: (record: DataSource, opener: HTMLButtonElement) => void;
  messages: Messages;
  text: EmbedMessages;
  /** The record whose editor is open, shown in place of its row's end. */
  editingId?: string | null;
  editor?: ReactNode;
}

const where = (record: DataSource) =>
  `${record.host}:${record.port}${record.databaseName ? ` / ${record.databaseName}` : ''}`;

/**
 * The organization's data sources, with Edit buttons and "Load more". The editor of a record
 * opens inside its row, where the user clicked, not below a long list.
 */
export function DataSourceList({
  pages,
  onEdit,
  messages,
  text,
  editingId = null,
  editor,
}: DataSourceListProps) {
  const firstLoad = pages.items.length === 0;
  if (firstLoad && pages.status === 'loading') {
    return (
      <p className="bk-embed__status" role="status" data-state="loading">
        {text.dataSourcesLoading}
      </p>
    );
  }
  if (firstLoad && pages.status === 'error') {
    return (
      <div className="bk-alert" role="alert" data-state="error">
        <p>{errorText(pages.error, messages, text.dataSourcesLoadFailed)}</p>
        <button type="button" className="bk-button" onClick={pages.load}>
          {messages.retry}
        </button>
      </div>
    );
  }
  if (firstLoad) {
    return (
      <p className="bk-embed__status" data-state="empty">
        {text.dataSourcesEmpty}
      </p>
    );
  }

  return (
    <>
      <ul className="bk-embed__list" data-state="ready">
        {pages.items.map((record) => (
          <li
            key={record.id}
            className="bk-embed__item"
            data-state={editingId === record.id ? 'editing' : undefined}
          >
            <span className="bk-embed__item-text">
              <span className="bk-embed__item-name">{record.displayName}</span>
              <span className="bk-embed__item-where">{where(record)}</span>
            </span>
            {onEdit && (
              <button
                type="button"
                className="bk-button bk-button--small"
                aria-label={text.editNamed(record.displayName)}
                onClick={(event) => onEdit(record, event.currentTarget)}
              >
                {text.edit}
              </button>
            )}
            {editingId === record.id && <div className="bk-embed__item-editor">{editor}</div>}
          </li>
        ))}
      </ul>
      {pages.status === 'error' && (
        <p className="bk-alert" role="alert">
          {errorText(pages.error, messages, text.dataSourcesLoadFailed)}
        </p>
      )}
      {pages.hasMore && (
        <button
          type="button"
          className="bk-button"
          onClick={pages.load}
          disabled={pages.status === 'loading'}
        >
          {pages.status === 'loading' ? messages.loadingMore : messages.loadMore}
        </button>
      )}
    </>
  );
}
