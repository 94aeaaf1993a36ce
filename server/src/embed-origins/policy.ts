import type { Store } from '../store/db';
import { anyOrganizationHasPattern, findOrganizationById } from '../store/organizations';
import { allowingPatterns } from './origin-index';
import { rowAllowsOrigin } from './stored';

/** Which origins may call the API for an organization, answered from the store. */
export interface OriginPolicy {
  /** Whether the organization allows `origin`; false for an unknown organization. */
  orgAllows(orgId: string, origin: string): Promise<boolean>;
  /** Whether any organization allows `origin`. */
  anyOrgAllows(origin: string): Promise<boolean>;
}

/**
 * The embed-origin policy over a store. `anyOrgAllows` looks up the few patterns that would
 * allow the origin in the store's index of every organization's patterns (kept by the store
 * as organizations are written): one indexed read, as cheap with 100,000 organizations as
 * with ten, and exact at once after any write.
 */
export function createOriginPolicy(options: { store: Store }): OriginPolicy {
  const { store } = options;
  return {
    async orgAllows(orgId, origin) {
      const org = await findOrganizationById(store.db, orgId);
      return org ? rowAllowsOrigin(org, origin) : false;
    },
    async anyOrgAllows(origin) {
      const patterns = allowingPatterns(origin);
      if (patterns.length === 0) return false;
      return anyOrganizationHasPattern(store.db, store.engine, patterns);
    },
  };
}
