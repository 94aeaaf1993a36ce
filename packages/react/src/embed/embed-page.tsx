import { useResource } from '../internal/use-resource';
import { MemberCard } from '../member-card/member-card';
import { useBridge } from '../provider/bridge-provider';
import type { ColorScheme as Theme } from '../provider/theme';
import { DataSourceList } from './data-source-list';
import { EditorSection } from './editor-section';
import { embedMessages as text } from './embed-messages';
import { useDataSources } from './use-data-sources';
import { useEmbedEditor } from './use-embed-editor';

interface EmbedPageProps {
  orgId: string;
  memberId: string;
  orgName: string;
  /** `hide_org_name=true`: the heading stays for screen readers only. */
  hideOrgName: boolean;
  theme: Theme;
}

/** The page inside `BridgeProvider`: the data sources and their editor, and the member. */
export function EmbedPage({ orgId, memberId, orgName, hideOrgName, theme }: EmbedPageProps) {
  const { client, messages } = useBridge();
  const member = useResource(`${orgId}/${memberId}`, (signal) =>
    client.getMember({ params: { orgId, id: memberId }, signal }),
  );
  const canEdit = member.data?.data.role === 'ADMIN';
  const pages = useDataSources(client, orgId);
  const editor = useEmbedEditor(pages);

  return (
    <div className="bk bk-embed" data-bk-theme={theme}>
      <header className={hideOrgName ? 'bk-visually-hidden' : 'bk-embed__header'}>
        <h1>{orgName}</h1>
      </header>
      <div className="bk-embed__layout">
        <main className="bk-embed__main">
          <section className="bk-embed__section" aria-labelledby={editor.listId}>
            <div className="bk-embed__section-head">
              <h2 id={editor.listId} ref={editor.listTitle} tabIndex={-1}>
                {text.dataSources}
              </h2>
              {canEdit && (
                <button
                  type="button"
                  className="bk-button bk-button--primary"
                  onClick={(event) => editor.openNew(event.currentTarget)}
                >
                  {text.addDataSource}
                </button>
              )}
            </div>
            <p className="bk-embed__notice" role="status">
              {editor.notice}
            </p>
            {editor.editor && !editor.editor.initial && (
              <EditorSection orgId={orgId} editor={editor} />
            )}
            <DataSourceList
              client={client}
              orgId={orgId}
              pages={pages}
              canSync={canEdit}
              onEdit={canEdit ? editor.openEdit : undefined}
              messages={messages}
              text={text}
              editingId={editor.editor?.initial?.id ?? null}
              editor={<EditorSection orgId={orgId} editor={editor} />}
            />
          </section>
        </main>
        <aside className="bk-embed__aside" aria-label={text.signedInAs}>
          <MemberCard orgId={orgId} memberId={memberId} />
        </aside>
      </div>
    </div>
  );
}
