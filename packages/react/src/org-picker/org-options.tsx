import type { Organization } from '@bridgekit/contract';
import type { useListboxKeyboard } from './use-listbox-keyboard';
import type { OrgPages } from './use-org-pages';

interface OrgOptionsProps {
  organizations: Organization[];
  selectedId: string | null;
  onSelect: (organization: Organization) => void;
  optionId: (id: string) => string;
  listbox: ReturnType<typeof useListboxKeyboard<Organization>>;
  pages: OrgPages;
  label: string;
}

/** The listbox of organizations; scrolling to its end loads the next page. */
export function OrgOptions(props: OrgOptionsProps) {
  const { organizations, selectedId, onSelect, optionId, listbox, pages, label } = props;
  const { activeId, setActiveId, activeIndex } = listbox;
  return (
    <div
      ref={listbox.listRef}
      role="listbox"
      tabIndex={0}
      className="bk-org-picker__list"
      aria-label={label}
      aria-activedescendant={
        activeIndex >= 0 ? optionId(organizations[activeIndex]!.id) : undefined
      }
      aria-busy={pages.status === 'loading'}
      onKeyDown={listbox.onListKeyDown}
      onFocus={listbox.onListFocus}
      onScroll={(event) => {
        const el = event.currentTarget;
        if (el.scrollTop + el.clientHeight >= el.scrollHeight - 48) pages.load();
      }}
    >
      {organizations.map((org) => (
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
  );
}
