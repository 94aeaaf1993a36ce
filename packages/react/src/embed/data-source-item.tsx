import type { BridgeClient } from '@bridgekit/client';
import type { DataSource } from '@bridgekit/contract';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { errorText, isAdminRequired } from '../internal/error-text';
import type { ProviderMessages } from '../provider/messages';
import type { EmbedMessages } from './embed-messages';
import { healthState, StatusBadge, syncState } from './source-status';
import { SourceTables } from './source-tables';

/** Waits between reads of the record while a requested sync runs: 1 s, 2 s, then every 4 s. */
const POLL_MS = [1000, 2000, 4000];
/** Gives up watching after this long; the badge then shows whatever the record says. */
const POLL_FOR_MS = 5 * 60_000;

interface DataSourceItemProps {
  client: BridgeClient;
  orgId: string;
  record: DataSource;
  now: number;
  /** Absent for members who may not edit. */
  onEdit?: ((record: DataSource, opener: HTMLButtonElement) => void) | undefined;
  /** Absent for members: they may not start a sync. */
  canSync: boolean;
  /** A newer copy of the record (after a sync request and while watching it). */
  onRecord: (record: DataSource) => void;
  /** The record's editor, when it is open: shown inside the row, where the user clicked. */
  editor?: ReactNode | undefined;
  messages: ProviderMessages;
  text: EmbedMessages;
}

/**
 * "Sync now": `POST …/sync` (202), then the record is read again until the sync it asked for
 * has finished (a new attempt that is no longer SYNCING); until then the badge says Syncing.
 */
function useSyncNow(props: DataSourceItemProps) {
  const { client, orgId, record, onRecord } = props;
  const [syncing, setSyncing] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [refused, setRefused] = useState(false);
  const alive = useRef(true);
  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
    };
  }, []);

  const watch = async (before: string | null) => {
    const until = Date.now() + POLL_FOR_MS;
    for (let i = 0; alive.current && Date.now() < until; i++) {
      await new Promise((done) => setTimeout(done, POLL_MS[Math.min(i, POLL_MS.length - 1)]));
      if (!alive.current) return;
      try {
        const { data } = await client.getDataSource({ params: { orgId, id: record.id } });
        if (!alive.current) return;
        onRecord(data);
        if (data.lastSyncStatus !== 'SYNCING' && data.lastSyncAttemptAt !== before) break;
      } catch {
        // A failed read is retried at the next tick.
      }
    }
    if (alive.current) setSyncing(false);
  };

  const start = async () => {
    if (syncing) return;
    setSyncing(true);
    setError(null);
    const before = record.lastSyncAttemptAt;
    try {
      const { data } = await client.syncDataSource({ params: { orgId, id: record.id } });
      if (!alive.current) return;
      onRecord(data);
      await watch(before);
    } catch (failure) {
      if (!alive.current) return;
      setSyncing(false);
      if (isAdminRequired(failure)) setRefused(true);
      else setError(failure);
    }
  };
  return { syncing, error, refused, start };
}

/** One data source: name, address, health and sync badges, Sync now and Edit, its tables. */
export function DataSourceItem(props: DataSourceItemProps) {
  const { client, orgId, record, now, onEdit, canSync, messages, text, editor } = props;
  const sync = useSyncNow(props);
  const name = record.displayName;
  return (
    <li className="bk-embed__item" data-state={editor ? 'editing' : undefined}>
      <div className="bk-embed__item-head">
        <span className="bk-embed__item-text">
          <span className="bk-embed__item-name">{name}</span>
          <span className="bk-embed__item-where">{where(record)}</span>
        </span>
        <span className="bk-embed__item-actions">
          {canSync && !sync.refused && (
            <button
              type="button"
              className="bk-button bk-button--small"
              aria-label={text.syncNowNamed(name)}
              aria-disabled={sync.syncing || undefined}
              onClick={sync.start}
            >
              {text.syncNow}
            </button>
          )}
          {onEdit && (
            <button
              type="button"
              className="bk-button bk-button--small"
              aria-label={text.editNamed(name)}
              onClick={(event) => onEdit(record, event.currentTarget)}
            >
              {text.edit}
            </button>
          )}
        </span>
      </div>
      <div className="bk-embed__item-states">
        <StatusBadge topic={text.health} state={healthState(record, text)} now={now} text={text} />
        <StatusBadge
          topic={text.sync}
          state={syncState(record, text, sync.syncing)}
          now={now}
          text={text}
        />
      </div>
      {sync.error !== null && (
        <p className="bk-alert" role="alert">
          {errorText(sync.error, messages, text.syncNotStarted)}
        </p>
      )}
      {record.hasCompletedFirstSync && (
        <SourceTables
          client={client}
          orgId={orgId}
          id={record.id}
          name={name}
          version={record.lastSuccessfulSyncAt}
          now={now}
          messages={messages}
          text={text}
        />
      )}
      {editor && <div className="bk-embed__item-editor">{editor}</div>}
    </li>
  );
}

const where = (record: DataSource) =>
  `${record.host}:${record.port}${record.databaseName ? ` / ${record.databaseName}` : ''}`;
