import { useRef } from 'react';

const TYPEAHEAD_MS = 500;

interface Named {
  id: string;
  name: string;
}

/** The first option from `start` on (wrapping around) whose name starts with `text`. */
function typeaheadMatch<T extends Named>(options: T[], start: number, text: string) {
  for (let n = 0; n < options.length; n++) {
    const option = options[(start + n) % options.length];
    if (option?.name.toLowerCase().startsWith(text)) return option;
  }
  return undefined;
}

/**
 * Type-ahead over option names: letters typed within half a second of each other add up to
 * one search; `typing` tells whether a Space belongs to it.
 */
export function useTypeahead<T extends Named>(
  options: T[],
  activeIndex: number,
  onMatch: (option: T) => void,
) {
  const typed = useRef({ text: '', at: 0 });

  const typing = () => Date.now() - typed.current.at <= TYPEAHEAD_MS && typed.current.text !== '';

  const typeAhead = (key: string) => {
    const now = Date.now();
    const state = typed.current;
    state.text = now - state.at > TYPEAHEAD_MS ? key : state.text + key;
    state.at = now;
    const text = state.text.toLowerCase();
    // A fresh letter moves past the current match; more letters refine it.
    const start = text.length === 1 ? activeIndex + 1 : Math.max(activeIndex, 0);
    const match = typeaheadMatch(options, start, text);
    if (match) onMatch(match);
  };

  return { typing, typeAhead };
}
