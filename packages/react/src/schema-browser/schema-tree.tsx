import { type KeyboardEvent, useEffect, useId, useRef, useState } from 'react';
import type { Row } from './rows';
import type { SchemaBrowserMessages } from './schema-browser-messages';
import { useVirtualWindow } from './use-virtual-window';

/** Height of one line of the tree in px; the CSS sets the same (`.bk-schema-browser__row`). */
export const ROW_HEIGHT = 32;

interface SchemaTreeProps {
  rows: Row[];
  label: string;
  /** Viewport height in px. */
  height: number;
  messages: SchemaBrowserMessages;
  onToggle: (tableKey: string) => void;
  /** The user has reached the last loaded rows: time for the next page. */
  onNearEnd: () => void;
}

/**
 * The tables and their columns as an ARIA tree, virtualised: only the lines in view are in the
 * DOM, so 10,000 tables scroll like 10. The tree takes focus once and moves its active line with
 * the arrows (Right opens a table or enters it, Left closes it or goes back to it), Home, End,
 * Page Up and Page Down; Enter and Space open and close.
 */
export function SchemaTree({
  rows,
  label,
  height,
  messages,
  onToggle,
  onNearEnd,
}: SchemaTreeProps) {
  const id = useId();
  const viewport = useRef<HTMLDivElement>(null);
  const [activeKey, setActiveKey] = useState<string | null>(null);
  const found = activeKey === null ? -1 : rows.findIndex((row) => row.key === activeKey);
  const active = found === -1 ? 0 : found;
  const view = useVirtualWindow(viewport, rows.length, ROW_HEIGHT, height);
  const page = Math.max(1, Math.floor(height / ROW_HEIGHT) - 1);

  useEffect(() => {
    if (view.last >= rows.length - page) onNearEnd();
  }, [view.last, rows.length, page, onNearEnd]);

  const moveTo = (index: number) => {
    const next = Math.max(0, Math.min(rows.length - 1, index));
    const row = rows[next];
    if (!row) return;
    setActiveKey(row.key);
    view.reveal(next);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const row = rows[active];
    if (!row) return;
    const toggle = () => row.type === 'table' && onToggle(row.key);
    switch (event.key) {
      case 'ArrowDown':
        moveTo(active + 1);
        break;
      case 'ArrowUp':
        moveTo(active - 1);
        break;
      case 'Home':
        moveTo(0);
        break;
      case 'End':
        moveTo(rows.length - 1);
        break;
      case 'PageDown':
        moveTo(active + page);
        break;
      case 'PageUp':
        moveTo(active - page);
        break;
      case 'ArrowRight':
        if (row.type === 'table' && !row.open) toggle();
        else if (row.type === 'table') moveTo(active + 1);
        break;
      case 'ArrowLeft':
        if (row.type === 'table' && row.open) toggle();
        else if (row.type === 'column') moveTo(rows.findIndex((r) => r.key === row.parent));
        break;
      case 'Enter':
      case ' ':
        toggle();
        break;
      default:
        return;
    }
    event.preventDefault();
  };

  const rowId = (index: number) => `${id}-${index}`;
  const drawn = rows.slice(view.first, view.last);
  return (
    <div
      ref={viewport}
      className="bk-schema-browser__viewport"
      role="tree"
      aria-label={label}
      tabIndex={0}
      aria-activedescendant={rows.length > 0 ? rowId(active) : undefined}
      style={{ height, overflowY: 'auto' }}
      onScroll={view.onScroll}
      onKeyDown={onKeyDown}
    >
      <div
        className="bk-schema-browser__spacer"
        style={{ height: view.total, position: 'relative' }}
      >
        {drawn.map((row, i) => {
          const index = view.first + i;
          return (
            // The tree holds focus and the keys (aria-activedescendant); a click is for the mouse.
            // biome-ignore lint/a11y/useKeyWithClickEvents: the keys are the tree's.
            // biome-ignore lint/a11y/useFocusableInteractive: focus stays on the tree (activedescendant).
            <div
              key={row.key}
              id={rowId(index)}
              role="treeitem"
              className="bk-schema-browser__row"
              data-type={row.type}
              aria-level={row.type === 'table' ? 1 : 2}
              aria-setsize={row.size}
              aria-posinset={row.pos}
              aria-expanded={row.type === 'table' ? row.open : undefined}
              aria-selected={index === active}
              style={{ position: 'absolute', top: index * ROW_HEIGHT, height: ROW_HEIGHT }}
              onClick={() => {
                setActiveKey(row.key);
                if (row.type === 'table') onToggle(row.key);
              }}
            >
              <RowText row={row} messages={messages} />
            </div>
          );
        })}
      </div>
    </div>
  );
}

function RowText({ row, messages }: { row: Row; messages: SchemaBrowserMessages }) {
  if (row.type === 'column') {
    const { column } = row;
    return (
      <>
        <span className="bk-schema-browser__name">{column.name}</span>
        <span className="bk-schema-browser__meta">
          {column.type}
          {column.nullable ? ` · ${messages.nullable}` : ''}
        </span>
      </>
    );
  }
  const { table } = row;
  return (
    <>
      <span className="bk-schema-browser__name">{row.key}</span>
      <span className="bk-schema-browser__meta">
        {table.kind === 'VIEW' ? `${messages.view} · ` : ''}
        {messages.columns(table.columns.length)}
      </span>
    </>
  );
}
