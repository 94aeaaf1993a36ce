import type { Organization } from '@bridgekit/contract';
import { type KeyboardEvent, useEffect, useId, useRef, useState } from 'react';
import { errorText } from '../internal/error-text';
import type { Messages } from '../provider/messages';
import type { OrgPages } from './use-org-pages';

interface OrgListProps {
  pages: OrgPages;
  selectedId: string | null;
  onSelect: (organization: Organization) => void;
  messages: Messages;
}

const TYPEAHEAD_MS = 500;

/** Search box and listbox inside the picker's dialog. */
export function OrgList({ pages, selectedId, onSelect, messages }: OrgListProps) {
  const [query, setQuery] = useState('');
  const [activeId, setActiveId] = useState<string | null>(null);
  const listRef = useRef<HTMLDivElement>(null);
  const advanceOnLoad = useRef(false);
  const typed = useRef({ text: '', at: 0 });
  const baseId = useId();
  const optionId = (id: string) => `${baseId}-${id}`;

  const needle = query.trim().toLowerCase();
  const visible = needle
    ? pages.items.filter(
        (org) => org.name.toLowerCase().includes(needle) || org.slug.includes(needle),
      )
    : pages.items;
  const activeIndex = visible.findIndex((org) => org.id === activeId);
  const last = visible.length - 1;

  // biome-ignore lint/correctness/useExhaustiveDependencies: load the first page once, on open.
  useEffect(() => {
    if (pages.status === 'idle') pages.load();
  }, []);

  // ArrowDown on the last option asked for the next page: move onto its first match.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when a page arrives.
  useEffect(() => {
    if (!advanceOnLoad.current || pages.status === 'loading') return;
    advanceOnLoad.current = false;
    const next = visible[activeIndex + 1];
    if (next) setActiveId(next.id);
  }, [pages.items.length, pages.status]);

  useEffect(() => {
    if (activeId)
      document.getElementById(`${baseId}-${activeId}`)?.scrollIntoView?.({ block: 'nearest' });
  }, [activeId, baseId]);

  const move = (index: number) => {
    const org = visible[Math.max(0, Math.min(index, last))];
    if (org) setActiveId(org.id);
  };

  const typeAhead = (key: string) => {
    const now = Date.now();
    const state = typed.current;
    state.text = now - state.at > TYPEAHEAD_MS ? key : state.text + key;
    state.at = now;
    const text = state.text.toLowerCase();
    // A fresh letter moves past the current match; more letters refine it.
    const start = text.length === 1 ? activeIndex + 1 : Math.max(activeIndex, 0);
    for (let n = 0; n < visible.length; n++) {
      const org = visible[(start + n) % visible.length];
      if (org?.name.toLowerCase().startsWith(text)) {
        setActiveId(org.id);
        return;
      }
    }
  };

  const onListKeyDown = (event: KeyboardEvent) => {
    const typing = Date.now() - typed.current.at <= TYPEAHEAD_MS && typed.current.text !== '';
    switch (event.key) {
      case 'ArrowDown':
        if (activeIndex >= last && pages.hasMore) {
          advanceOnLoad.current = true;
          pages.load();
        } else move(activeIndex + 1);
        break;
      case 'ArrowUp':
        move(activeIndex - 1);
        break;
      case 'Home':
        move(0);
        break;
      case 'End':
        move(last);
        break;
      case ' ':
        if (typing) {
          typeAhead(' ');
          break;
        }
        if (visible[activeIndex]) onSelect(visible[activeIndex]);
        break;
      case 'Enter':
        if (visible[activeIndex]) onSelect(visible[activeIndex]);
        break;
      default:
        if (event.key.length !== 1 || event.ctrlKey || event.metaKey || event.altKey) return;
        typeAhead(event.key);
    }
    event.preventDefault();
  };

  const onSearchKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'ArrowDown') {
      event.preventDefault();
      listRef.current?.focus();
    } else if (event.key === 'Enter') {
      event.preventDefault();
      const org = visible[activeIndex] ?? visible[0];
      if (org) onSelect(org);
    }
  };

  const onListFocus = () => {
    if (activeIndex >= 0) return;
    const selected = visible.find((org) => org.id === selectedId);
    setActiveId((selected ?? visible[0])?.id ?? null);
  };

  const firstLoad = pages.items.length === 0;
  const state =
    pages.status === 'error' && firstLoad
      ? 'error'
      : (pages.status === 'loading' || pages.status === 'idle') && firstLoad
        ? 'loading'
        : visible.length === 0
          ? 'empty'
          : 'ready';

  return (
    <div className="bk-org-picker__body" data-state={state}>
      <input
        type="search"
        className="bk-input bk-org-picker__search"
        aria-label={messages.orgSearchLabel}
        value={query}
        onChange={(event) => setQuery(event.target.value)}
        onKeyDown={onSearchKeyDown}
        autoComplete="off"
      />
      {visible.length > 0 && (
        <div
          ref={listRef}
          role="listbox"
          tabIndex={0}
          className="bk-org-picker__list"
          aria-label={messages.orgListLabel}
          aria-activedescendant={activeIndex >= 0 ? optionId(visible[activeIndex]!.id) : undefined}
          aria-busy={pages.status === 'loading'}
          onKeyDown={onListKeyDown}
          onFocus={onListFocus}
          onScroll={(event) => {
            const el = event.currentTarget;
            if (el.scrollTop + el.clientHeight >= el.scrollHeight - 48) pages.load();
          }}
        >
          {visible.map((org) => (
            // Options are not focusable: the listbox keeps focus and points at them
            // with aria-activedescendant, and handles the keys.
            // biome-ignore lint/a11y/useFocusableInteractive: see above
            // biome-ignore lint/a11y/useKeyWithClickEvents: see above
            <div
              key={org.id}
              id={optionId(org.id)}
              role="option"
              className="bk-org-picker__option"
              aria-selected={org.id === selectedId}
              data-highlighted={org.id === activeId ? '' : undefined}
              onClick={() => onSelect(org)}
              onMouseMove={() => org.id !== activeId && setActiveId(org.id)}
            >
              <span className="bk-org-picker__name">{org.name}</span>{' '}
              <span className="bk-org-picker__slug">{org.slug}</span>
            </div>
          ))}
        </div>
      )}
      {state === 'empty' && (
        <p className="bk-org-picker__message">
          {needle ? messages.orgsNoMatch(query.trim()) : messages.orgsEmpty}
        </p>
      )}
      {pages.status === 'error' && (
        <div className="bk-org-picker__message" role="alert">
          <p>{errorText(pages.error, messages, messages.orgsLoadFailed)}</p>
          <button type="button" className="bk-button" onClick={pages.load}>
            {messages.retry}
          </button>
        </div>
      )}
      <p className="bk-org-picker__status" role="status">
        {pages.status === 'loading'
          ? firstLoad
            ? messages.orgsLoading
            : messages.loadingMore
          : ''}
      </p>
      {pages.hasMore && pages.status === 'ready' && (
        <button type="button" className="bk-button bk-org-picker__more" onClick={pages.load}>
          {messages.loadMore}
        </button>
      )}
    </div>
  );
}
