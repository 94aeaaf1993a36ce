import type { DataSource } from '@bridgekit/contract';
import { useEffect, useId, useRef, useState } from 'react';
import type { DataSourcePages } from './use-data-sources';

export interface Editor {
  key: string;
  /** The listed record being edited; null while adding. */
  initial: DataSource | null;
  /** Name of the record on screen, once there is one. */
  name: string | null;
}

/**
 * Which data source the list edits, and where focus goes: to the editor's title when
 * one opens, back to the button that opened it (or the list's title) when it closes, and to
 * the list's title with a notice after a delete.
 */
export function useEditor(
  pages: DataSourcePages,
  deletedNamed: (name: string) => string,
  events: {
    onSaved?: ((record: DataSource) => void) | undefined;
    onDeleted?: ((record: DataSource) => void) | undefined;
  },
) {
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

  return {
    editor,
    notice,
    listTitle,
    editorTitle,
    listId,
    editorId,
    openNew: (from: HTMLElement) =>
      open({ key: `new-${++added.current}`, initial: null, name: null }, from),
    openEdit: (record: DataSource, from: HTMLElement) =>
      open({ key: record.id, initial: record, name: record.displayName }, from),
    close: () => {
      setEditor(null);
      const back = opener.current;
      (back?.isConnected ? back : listTitle.current)?.focus();
    },
    onSaved: (record: DataSource) => {
      pages.upsert(record);
      events.onSaved?.(record);
      setEditor((current) => current && { ...current, name: record.displayName });
    },
    onDeleted: (record: DataSource) => {
      pages.remove(record.id);
      setEditor(null);
      setNotice(deletedNamed(record.displayName));
      events.onDeleted?.(record);
      listTitle.current?.focus();
    },
  };
}

export type ListEditor = ReturnType<typeof useEditor>;
