import { DataSourceForm } from '../data-source-form/data-source-form';
import type { DataSourceListMessages } from './data-source-list-messages';
import type { ListEditor } from './use-editor';

/** The open editor: its title, Close, and `DataSourceForm` for the record or a new one. */
interface EditorSectionProps {
  orgId: string;
  editor: ListEditor;
  messages: DataSourceListMessages;
  unstyled: boolean | undefined;
}

export function EditorSection({ orgId, editor, messages: text, unstyled }: EditorSectionProps) {
  const open = editor.editor;
  if (!open) return null;
  return (
    <section className="bk-data-source-list__editor" aria-labelledby={editor.editorId}>
      <div className="bk-data-source-list__head">
        <h3
          id={editor.editorId}
          ref={editor.editorTitle}
          tabIndex={-1}
          className="bk-data-source-list__subtitle"
        >
          {open.name ? text.editTitle(open.name) : text.addDataSource}
        </h3>
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
        unstyled={unstyled}
      />
    </section>
  );
}
