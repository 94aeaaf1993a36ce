import type { DataSource } from '@bridgekit/contract';
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
}

const where = (record: DataSource) =>
  `${record.host}:${record.port}${record.databaseName ? ` / ${record.databaseName}` : ''}`;

/** The organization's data sources, with Edit buttons and "Load more". */
export function DataSourceList({ pages, onEdit, messages, text }: DataSourceListProps) {
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
          <li key={record.id} className="bk-embed__item">
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
