import { type KeyboardEvent, useEffect, useRef, useState } from 'react';
import { useTypeahead } from './use-typeahead';

interface ListboxKeyboardOptions<T extends { id: string; name: string }> {
  /** The options on screen, in order. */
  options: T[];
  selectedId: string | null;
  onSelect: (option: T) => void;
  /** The element id of an option, for `aria-activedescendant` and scrolling. */
  optionId: (id: string) => string;
  /** ArrowDown past the last option asks for the next page and moves onto it once it arrives. */
  pages: { items: readonly unknown[]; status: string; hasMore: boolean; load: () => void };
}

/**
 * Keyboard handling of a listbox that keeps focus and points at its active option with
 * `aria-activedescendant`: arrows, Home/End, Enter/Space, type-ahead, paging on ArrowDown,
 * and ArrowDown/Enter from the search box above it.
 */
export function useListboxKeyboard<T extends { id: string; name: string }>(
  props: ListboxKeyboardOptions<T>,
) {
  const { options, selectedId, onSelect, optionId, pages } = props;
  const [activeId, setActiveId] = useState<string | null>(null);
  const listRef = useRef<HTMLDivElement>(null);
  const advanceOnLoad = useRef(false);
  const activeIndex = options.findIndex((option) => option.id === activeId);
  const last = options.length - 1;
  const { typing, typeAhead } = useTypeahead(options, activeIndex, (match) =>
    setActiveId(match.id),
  );

  // ArrowDown on the last option asked for the next page: move onto its first match.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when a page arrives.
  useEffect(() => {
    if (!advanceOnLoad.current || pages.status === 'loading') return;
    advanceOnLoad.current = false;
    const next = options[activeIndex + 1];
    if (next) setActiveId(next.id);
  }, [pages.items.length, pages.status]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `optionId` only prefixes the id.
  useEffect(() => {
    if (activeId)
      document.getElementById(optionId(activeId))?.scrollIntoView?.({ block: 'nearest' });
  }, [activeId]);

  const move = (index: number) => {
    const option = options[Math.max(0, Math.min(index, last))];
    if (option) setActiveId(option.id);
  };
  const selectActive = () => {
    if (options[activeIndex]) onSelect(options[activeIndex]);
  };

  const onListKeyDown = (event: KeyboardEvent) => {
    const { key } = event;
    if (key === 'ArrowDown' && activeIndex >= last && pages.hasMore) {
      advanceOnLoad.current = true;
      pages.load();
    } else if (key === 'ArrowDown') move(activeIndex + 1);
    else if (key === 'ArrowUp') move(activeIndex - 1);
    else if (key === 'Home') move(0);
    else if (key === 'End') move(last);
    else if (key === ' ' && typing()) typeAhead(' ');
    else if (key === ' ' || key === 'Enter') selectActive();
    else if (key.length !== 1 || event.ctrlKey || event.metaKey || event.altKey) return;
    else typeAhead(key);
    event.preventDefault();
  };

  const onSearchKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'ArrowDown') {
      event.preventDefault();
      listRef.current?.focus();
    } else if (event.key === 'Enter') {
      event.preventDefault();
      const option = options[activeIndex] ?? options[0];
      if (option) onSelect(option);
    }
  };

  const onListFocus = () => {
    if (activeIndex >= 0) return;
    const selected = options.find((option) => option.id === selectedId);
    setActiveId((selected ?? options[0])?.id ?? null);
  };

  return {
    activeId,
    setActiveId,
    activeIndex,
    listRef,
    onListKeyDown,
    onSearchKeyDown,
    onListFocus,
  };
}
