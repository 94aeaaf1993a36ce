import type { BridgeClient } from '@bridgekit/client';
import type { DataSource } from '@bridgekit/contract';
import type { ReactNode } from 'react';
import { errorText } from '../internal/error-text';
import type { ProviderMessages } from '../provider/messages';
import { DataSourceItem } from './data-source-item';
import type { EmbedMessages } from './embed-messages';
import { useNow } from './source-status';
import type { DataSourcePages } from './use-data-sources';

interface DataSourceListProps {
  client: BridgeClient;
  orgId: string;
  pages: DataSourcePages;
  /** Absent for members who may not edit. */
  onEdit?: ((record: DataSource, opener: HTMLButtonElement) => void) | undefined;
  /** ADMINs may start a sync. */
  canSync: boolean;
  messages: ProviderMessages;
  text: EmbedMessages;
  /** The record whose editor is open, shown in place of its row's end. */
  editingId?: string | null | undefined;
  editor?: ReactNode | undefined;
}

/**
 * The organization's data sources with their health, sync and tables; Edit, Sync now and
 * "Load more". The editor of a record opens inside its row, where the user clicked, not below
 * a long list.
 */
export function DataSourceList(props: DataSourceListProps) {
  const { client, orgId, pages, onEdit, canSync, messages, text } = props;
  const { editingId = null, editor } = props;
  const now = useNow();
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
          <DataSourceItem
            key={record.id}
            client={client}
            orgId={orgId}
            record={record}
            now={now}
            onEdit={onEdit}
            canSync={canSync}
            onRecord={pages.upsert}
            messages={messages}
            text={text}
            editor={editingId === record.id ? editor : undefined}
          />
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
