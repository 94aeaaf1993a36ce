import type { Store } from '../store/db';
import { findOrganizationById, listEmbedAllowedOrigins } from '../store/organizations';
import { OriginIndex } from './origin-index';
import { parseStoredOrigins, rowAllowsOrigin } from './stored';

/** Which origins may call the API for an organization, answered from the store. */
export interface OriginPolicy {
  /** Whether the organization allows `origin`; false for an unknown organization. */
  orgAllows(orgId: string, origin: string): Promise<boolean>;
  /** Whether any organization allows `origin`. */
  anyOrgAllows(origin: string): Promise<boolean>;
}

/**
 * The embed-origin policy over a store. `anyOrgAllows` looks the origin up in one index of
 * every organization's patterns, rebuilt when the organizations change (Store.version): exact,
 * and as cheap for ten thousand patterns as for ten.
 */
export function createOriginPolicy(options: { store: Store }): OriginPolicy {
  const { store } = options;
  let everyOrg: { version: string; index: Promise<OriginIndex> } | undefined;

  const buildIndex = async () => {
    const rows = await listEmbedAllowedOrigins(store.db);
    return new OriginIndex(rows.flatMap(parseStoredOrigins));
  };

  return {
    async orgAllows(orgId, origin) {
      const org = await findOrganizationById(store.db, orgId);
      return org ? rowAllowsOrigin(org, origin) : false;
    },
    async anyOrgAllows(origin) {
      const version = await store.version(['organizations']);
      let built = everyOrg?.version === version ? everyOrg : undefined;
      if (!built) {
        const index = buildIndex();
        built = { version, index };
        everyOrg = built;
        // A failed build is not kept: the next preflight tries again.
        index.catch(() => {
          if (everyOrg?.index === index) everyOrg = undefined;
        });
      }
      return (await built.index).allows(origin);
    },
  };
}
