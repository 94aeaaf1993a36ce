import { useState } from 'react';

/** Controlled when `value` is not undefined; otherwise keeps its own state from `defaultValue`. */
export function useControllable<T>(value: T | undefined, defaultValue: T): [T, (next: T) => void] {
  const [inner, setInner] = useState(defaultValue);
  return [value !== undefined ? value : inner, setInner];
}
