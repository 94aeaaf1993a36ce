import type { Organization } from '@bridgekit/contract';
import { useEffect, useId, useState } from 'react';
import type { CoreMessages } from '../provider/messages';
import { listState, OrgListStatus } from './org-list-status';
import { OrgOptions } from './org-options';
import type { OrgPickerMessages } from './org-picker-messages';
import { useListboxKeyboard } from './use-listbox-keyboard';
import type { OrgPages } from './use-org-pages';

interface OrgListProps {
  pages: OrgPages;
  selectedId: string | null;
  onSelect: (organization: Organization) => void;
  messages: CoreMessages & OrgPickerMessages;
}

/** Search box and listbox inside the picker's dialog. */
export function OrgList({ pages, selectedId, onSelect, messages }: OrgListProps) {
  const [query, setQuery] = useState('');
  const baseId = useId();
  const optionId = (id: string) => `${baseId}-${id}`;

  const needle = query.trim().toLowerCase();
  const visible = needle
    ? pages.items.filter(
        (org) => org.name.toLowerCase().includes(needle) || org.slug.includes(needle),
      )
    : pages.items;

  // biome-ignore lint/correctness/useExhaustiveDependencies: load the first page once, on open.
  useEffect(() => {
    if (pages.status === 'idle') pages.load();
  }, []);

  const listbox = useListboxKeyboard({ options: visible, selectedId, onSelect, optionId, pages });
  const state = listState(pages, visible.length);

  return (
    <div className="bk-org-picker__body" data-state={state}>
      <span className="bk-search">
        <svg
          className="bk-search__icon"
          viewBox="0 0 16 16"
          width="16"
          height="16"
          aria-hidden="true"
        >
          <circle cx="7" cy="7" r="4.5" fill="none" stroke="currentColor" strokeWidth="1.5" />
          <path d="M10.5 10.5 14 14" stroke="currentColor" strokeWidth="1.5" />
        </svg>
        <input
          type="search"
          className="bk-input bk-org-picker__search"
          aria-label={messages.orgSearchLabel}
          placeholder={messages.orgSearchPlaceholder}
          value={query}
          onChange={(event) => setQuery(event.target.value)}
          onKeyDown={listbox.onSearchKeyDown}
          autoComplete="off"
        />
      </span>
      {visible.length > 0 && (
        <OrgOptions
          organizations={visible}
          selectedId={selectedId}
          onSelect={onSelect}
          optionId={optionId}
          listbox={listbox}
          pages={pages}
          label={messages.orgListLabel}
        />
      )}
      <OrgListStatus pages={pages} state={state} query={query} messages={messages} />
    </div>
  );
}
