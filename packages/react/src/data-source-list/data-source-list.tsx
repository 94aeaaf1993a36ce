import type { DataSource } from '@bridgekit/contract';
import { type ComponentPropsWithoutRef, forwardRef } from 'react';
import { rootProps } from '../internal/root-props';
import { useComponentContext } from '../internal/use-component-context';
import { useAccess } from '../provider/use-access';
import { dataSourceListMessages } from './data-source-list-messages';
import { DataSourceRows } from './data-source-rows';
import { EditorSection } from './editor-section';
import { useDataSources } from './use-data-sources';
import { useEditor } from './use-editor';

export type DataSourceListProps = Omit<ComponentPropsWithoutRef<'section'>, 'children'> & {
  orgId: string;
  /** Data sources per page (1–100). Default 50. */
  pageSize?: number | undefined;
  /** After `DataSourceForm` created or updated a record. */
  onSaved?: ((record: DataSource) => void) | undefined;
  /** After `DataSourceForm` deleted a record. */
  onDeleted?: ((record: DataSource) => void) | undefined;
  /** Leave out the kit's styles for this component. */
  unstyled?: boolean | undefined;
};

/**
 * The organization's data sources with their health (an unhealthy one's last error in words)
 * and schema sync, and each one's synced tables (`SchemaBrowser`) on demand. An ADMIN adds a
 * data source, runs "Check now" and "Sync now", and edits one in `DataSourceForm`, which opens
 * inside its row. The role comes from the bridge's session.
 *
 * @example
 * <DataSourceList orgId={orgId} />
 */
export const DataSourceList = /* @__PURE__ */ forwardRef<HTMLElement, DataSourceListProps>(
  function DataSourceList(props, ref) {
    const { orgId, pageSize = 50, onSaved, onDeleted, unstyled, className, ...rest } = props;
    const context = useComponentContext('DataSourceList', dataSourceListMessages);
    const { client, messages } = context;
    const access = useAccess(context, orgId);
    const canEdit = access.status === 'ready' && access.canEdit;
    const pages = useDataSources(client, orgId, pageSize);
    const editor = useEditor(pages, messages.deletedNamed, { onSaved, onDeleted });
    const open = editor.editor;
    const section = (
      <EditorSection orgId={orgId} editor={editor} messages={messages} unstyled={unstyled} />
    );
    const state = pages.items.length === 0 && pages.status !== 'ready' ? pages.status : 'ready';

    return (
      <section
        {...rest}
        {...rootProps(context, 'data-source-list', unstyled, className, rest.style)}
        ref={ref}
        aria-labelledby={editor.listId}
        data-state={state}
      >
        <div className="bk-data-source-list__head">
          <h2
            id={editor.listId}
            ref={editor.listTitle}
            tabIndex={-1}
            className="bk-data-source-list__title"
          >
            {messages.dataSources}
          </h2>
          {canEdit && (
            <button
              type="button"
              className="bk-button bk-button--primary"
              onClick={(event) => editor.openNew(event.currentTarget)}
            >
              {messages.addDataSource}
            </button>
          )}
        </div>
        <p className="bk-data-source-list__notice" role="status">
          {editor.notice}
        </p>
        {open && !open.initial && section}
        <DataSourceRows
          context={context}
          unstyled={unstyled}
          orgId={orgId}
          pages={pages}
          canEdit={canEdit}
          onEdit={editor.openEdit}
          editingId={open?.initial?.id ?? null}
          editor={section}
          titleId={editor.listId}
        />
      </section>
    );
  },
);
