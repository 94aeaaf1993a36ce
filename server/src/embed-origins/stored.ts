import { LRUCache } from 'lru-cache';
import { OriginIndex } from './origin-index';

/** How an organization row keeps its allow-list: normalized patterns as a JSON array. */
export interface StoredOrigins {
  embedAllowedOrigins: string;
}

/** The column value for a normalized allow-list. */
export const storeOrigins = (patterns: readonly string[]): string => JSON.stringify(patterns);

/** An organization's allow-list, from its row. */
export const parseStoredOrigins = (row: StoredOrigins): string[] =>
  JSON.parse(row.embedAllowedOrigins) as string[];

// Few distinct allow-lists are in use at once; each is parsed and indexed once.
const indexes = new LRUCache<string, OriginIndex>({ max: 1000 });

/** Whether the organization of `row` allows a request's `Origin`. */
export function rowAllowsOrigin(row: StoredOrigins, origin: string): boolean {
  let index = indexes.get(row.embedAllowedOrigins);
  if (!index) {
    index = new OriginIndex(parseStoredOrigins(row));
    indexes.set(row.embedAllowedOrigins, index);
  }
  return index.allows(origin);
}
