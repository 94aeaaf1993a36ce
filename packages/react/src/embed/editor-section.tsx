import { DataSourceForm } from '../data-source-form/data-source-form';
import { embedMessages as text } from './embed-messages';
import type { EmbedEditor } from './use-embed-editor';

/** The open editor: its title, Close, and `DataSourceForm` for the record or a new one. */
export function EditorSection({ orgId, editor }: { orgId: string; editor: EmbedEditor }) {
  const open = editor.editor;
  if (!open) return null;
  return (
    <section className="bk-embed__section bk-embed__editor" aria-labelledby={editor.editorId}>
      <div className="bk-embed__section-head">
        <h2 id={editor.editorId} ref={editor.editorTitle} tabIndex={-1}>
          {open.name ? text.editTitle(open.name) : text.addDataSource}
        </h2>
        <button type="button" className="bk-button" onClick={editor.close}>
          {text.closeEditor}
        </button>
      </div>
      <DataSourceForm
        key={open.key}
        orgId={orgId}
        dataSource={open.initial ?? undefined}
        onSaved={editor.onSaved}
        onDeleted={editor.onDeleted}
      />
    </section>
  );
}
