import {
  type FetchLike,
  type GetSessionToken,
  type GetSessionTokenOptions,
  isBridgeError,
} from '@bridgekit/client';
import type { DataSource } from '@bridgekit/contract';
import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import { DataSourceForm } from '../data-source-form/data-source-form';
import { useResource } from '../internal/use-resource';
import { MemberCard } from '../member-card/member-card';
import { BridgeProvider, type Theme, useBridge } from '../provider/bridge-provider';
import { DataSourceList } from './data-source-list';
import { embedMessages as text } from './embed-messages';
import { embedSessionToken } from './embed-session';
import { useDataSources } from './use-data-sources';

/** What the bridge's page shell hands to the app (`data-embed` on `#bridgekit-root`). */
export interface EmbedConfig {
  orgId: string;
  memberId: string;
  orgName: string;
}

/** The `data-embed` JSON, or null when it is missing or malformed. */
export function readEmbedConfig(json: string | undefined): EmbedConfig | null {
  try {
    const value = JSON.parse(json ?? '') as Partial<EmbedConfig>;
    const { orgId, memberId, orgName } = value;
    if (typeof orgId !== 'string' || typeof memberId !== 'string') return null;
    return { orgId, memberId, orgName: typeof orgName === 'string' ? orgName : '' };
  } catch {
    return null;
  }
}

export interface EmbedAppProps extends EmbedConfig {
  /** Default: the session cookie traded at `POST /embed/session`. */
  getSessionToken?: GetSessionToken;
  /** Replaces `fetch` for API calls (tests). */
  fetch?: FetchLike;
  theme?: Theme;
}

/**
 * The bridge's full-embed page: the organization's data sources with add and edit through
 * `DataSourceForm`, and the signed-in member's `MemberCard`. API calls use the bearer token only.
 *
 * @example
 * createRoot(root).render(<EmbedApp orgId={orgId} memberId={memberId} orgName="Acme" />);
 */
export function EmbedApp(props: EmbedAppProps) {
  const { getSessionToken, fetch, theme = 'auto', ...config } = props;
  const [ended, setEnded] = useState(false);
  const source = useMemo(() => getSessionToken ?? embedSessionToken(), [getSessionToken]);
  const tokens = useCallback(
    async (options: GetSessionTokenOptions) => {
      try {
        return await source(options);
      } catch (error) {
        if (isBridgeError(error) && error.status === 401) setEnded(true);
        throw error;
      }
    },
    [source],
  );
  // Never the cookie on API calls: it stays with /embed/session.
  const apiFetch = useMemo<FetchLike>(
    () => (url, init) => (fetch ?? globalThis.fetch)(url, { ...init, credentials: 'omit' }),
    [fetch],
  );
  return (
    <BridgeProvider baseUrl="" getSessionToken={tokens} fetch={apiFetch} theme={theme}>
      <EmbedPage {...config} theme={theme} ended={ended} />
    </BridgeProvider>
  );
}

interface Editor {
  key: string;
  /** The listed record being edited; null while adding. */
  initial: DataSource | null;
  /** Name of the record on screen, once there is one. */
  name: string | null;
}

function EmbedPage({
  orgId,
  memberId,
  orgName,
  theme,
  ended,
}: EmbedConfig & { theme: Theme; ended: boolean }) {
  const { client, messages } = useBridge();
  const member = useResource(`${orgId}/${memberId}`, (signal) =>
    client.getMember({ params: { orgId, id: memberId }, signal }),
  );
  const canEdit = member.data?.data.role === 'ADMIN';
  const pages = useDataSources(client, orgId);
  const [editor, setEditor] = useState<Editor | null>(null);
  const [notice, setNotice] = useState('');
  const added = useRef(0);
  const opener = useRef<HTMLElement | null>(null);
  const listTitle = useRef<HTMLHeadingElement>(null);
  const editorTitle = useRef<HTMLHeadingElement>(null);
  const listId = useId();
  const editorId = useId();

  // biome-ignore lint/correctness/useExhaustiveDependencies: focus moves when another editor opens.
  useEffect(() => {
    editorTitle.current?.focus();
  }, [editor?.key]);

  const open = (next: Editor, from: HTMLElement) => {
    opener.current = from;
    setNotice('');
    setEditor(next);
  };
  const close = () => {
    setEditor(null);
    const back = opener.current;
    (back?.isConnected ? back : listTitle.current)?.focus();
  };
  const onSaved = (record: DataSource) => {
    pages.upsert(record);
    setEditor((current) => current && { ...current, name: record.displayName });
  };
  const onDeleted = (record: DataSource) => {
    pages.remove(record.id);
    setEditor(null);
    setNotice(text.deletedNamed(record.displayName));
    listTitle.current?.focus();
  };

  return (
    <div className="bk bk-embed" data-bk-theme={theme}>
      <header className="bk-embed__header">
        <h1>{orgName}</h1>
      </header>
      {ended && (
        <p className="bk-alert" role="alert">
          {text.sessionEnded}
        </p>
      )}
      <div className="bk-embed__layout">
        <main className="bk-embed__main">
          <section className="bk-embed__section" aria-labelledby={listId}>
            <div className="bk-embed__section-head">
              <h2 id={listId} ref={listTitle} tabIndex={-1}>
                {text.dataSources}
              </h2>
              {canEdit && (
                <button
                  type="button"
                  className="bk-button bk-button--primary"
                  onClick={(event) =>
                    open(
                      { key: `new-${++added.current}`, initial: null, name: null },
                      event.currentTarget,
                    )
                  }
                >
                  {text.addDataSource}
                </button>
              )}
            </div>
            <p className="bk-embed__notice" role="status">
              {notice}
            </p>
            <DataSourceList
              pages={pages}
              onEdit={
                canEdit
                  ? (record, from) =>
                      open({ key: record.id, initial: record, name: record.displayName }, from)
                  : undefined
              }
              messages={messages}
              text={text}
            />
          </section>
          {editor && (
            <section className="bk-embed__section bk-embed__editor" aria-labelledby={editorId}>
              <div className="bk-embed__section-head">
                <h2 id={editorId} ref={editorTitle} tabIndex={-1}>
                  {editor.name ? text.editTitle(editor.name) : text.addDataSource}
                </h2>
                <button type="button" className="bk-button" onClick={close}>
                  {text.closeEditor}
                </button>
              </div>
              <DataSourceForm
                key={editor.key}
                orgId={orgId}
                dataSource={editor.initial ?? undefined}
                onSaved={onSaved}
                onDeleted={onDeleted}
              />
            </section>
          )}
        </main>
        <aside className="bk-embed__aside" aria-label={text.signedInAs}>
          <MemberCard orgId={orgId} memberId={memberId} />
        </aside>
      </div>
    </div>
  );
}
