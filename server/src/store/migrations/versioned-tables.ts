/** The tables whose writes bump the store version that in-process caches compare against. */
export const VERSIONED_TABLES = ['users', 'organizations', 'members', 'data_sources'] as const;
