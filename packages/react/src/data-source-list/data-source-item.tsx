import type { DataSource } from '@bridgekit/contract';
import { type ReactNode, useId, useState } from 'react';
import { errorText } from '../internal/error-text';
import { SchemaBrowser } from '../schema-browser/schema-browser';
import type { ListContext } from './list-context';
import { healthState, StatusBadge, syncState } from './source-status';
import { useCheckNow, useSyncNow } from './use-record-actions';

interface DataSourceItemProps {
  context: ListContext;
  unstyled: boolean | undefined;
  orgId: string;
  record: DataSource;
  now: number;
  /** An ADMIN: Check now, Sync now and Edit. */
  canEdit: boolean;
  onEdit: (record: DataSource, opener: HTMLButtonElement) => void;
  /** A newer copy of the record (after a check or a sync request, and while watching it). */
  onRecord: (record: DataSource) => void;
  /** The record's editor, when it is open: shown inside the row, where the user clicked. */
  editor?: ReactNode | undefined;
}

/**
 * One data source: name, address, health and sync badges (an unhealthy source's last error
 * in words), Check now, Sync now and Edit for an ADMIN, and its synced tables on demand.
 */
export function DataSourceItem(props: DataSourceItemProps) {
  const { context, unstyled, orgId, record, now, canEdit, onEdit, editor } = props;
  const { messages } = context;
  const sync = useSyncNow(props);
  const check = useCheckNow(props);
  const [tablesOpen, setTablesOpen] = useState(false);
  const tablesId = useId();
  const name = record.displayName;
  const unhealthy = record.lastHealthStatus === 'UNHEALTHY' && record.healthErrorMessage;
  return (
    <li className="bk-data-source-list__item" data-state={editor ? 'editing' : undefined}>
      <div className="bk-data-source-list__item-head">
        <span className="bk-data-source-list__item-text">
          <span className="bk-data-source-list__item-name">{name}</span>
          <span className="bk-data-source-list__item-where">{where(record)}</span>
        </span>
        {canEdit && (
          <span className="bk-data-source-list__item-actions">
            <button
              type="button"
              className="bk-button bk-button--small"
              aria-label={messages.checkNowNamed(name)}
              aria-disabled={check.checking || undefined}
              onClick={check.start}
            >
              {messages.checkNow}
            </button>
            <button
              type="button"
              className="bk-button bk-button--small"
              aria-label={messages.syncNowNamed(name)}
              aria-disabled={sync.syncing || undefined}
              onClick={sync.start}
            >
              {messages.syncNow}
            </button>
            <button
              type="button"
              className="bk-button bk-button--small"
              aria-label={messages.editNamed(name)}
              onClick={(event) => onEdit(record, event.currentTarget)}
            >
              {messages.edit}
            </button>
          </span>
        )}
      </div>
      <div className="bk-data-source-list__item-states">
        <StatusBadge
          topic={messages.health}
          state={healthState(record, messages, check.checking)}
          now={now}
          text={messages}
        />
        <StatusBadge
          topic={messages.sync}
          state={syncState(record, messages, sync.syncing)}
          now={now}
          text={messages}
        />
      </div>
      {unhealthy && <p className="bk-data-source-list__reason">{record.healthErrorMessage}</p>}
      {check.error !== null && (
        <p className="bk-alert" role="alert">
          {errorText(check.error, messages, messages.checkNotRun)}
        </p>
      )}
      {sync.error !== null && (
        <p className="bk-alert" role="alert">
          {errorText(sync.error, messages, messages.syncNotStarted)}
        </p>
      )}
      {record.hasCompletedFirstSync && (
        <div className="bk-data-source-list__tables">
          <button
            type="button"
            className="bk-button bk-button--small"
            aria-expanded={tablesOpen}
            aria-controls={tablesOpen ? tablesId : undefined}
            aria-label={messages.tablesOf(name)}
            onClick={() => setTablesOpen(!tablesOpen)}
          >
            {messages.tables}
          </button>
          {tablesOpen && (
            <SchemaBrowser
              id={tablesId}
              orgId={orgId}
              dataSourceId={record.id}
              dataSourceName={name}
              version={record.lastSuccessfulSyncAt}
              unstyled={unstyled}
              className="bk-data-source-list__schema"
            />
          )}
        </div>
      )}
      {editor && <div className="bk-data-source-list__item-editor">{editor}</div>}
    </li>
  );
}

const where = (record: DataSource) =>
  `${record.host}:${record.port}${record.databaseName ? ` / ${record.databaseName}` : ''}`;
