import { sql, type Updateable } from 'kysely';
import type { Db, Engine, Store, VersionedTable } from './db';
import { precompiled } from './precompiled';
import type { OrganizationsTable } from './schema';
import { takeWriteLock } from './write-lock';

export type OrganizationRow = OrganizationsTable;
export type OrganizationWithRole = OrganizationRow & { role: string };

export const insertOrganization = (db: Db, org: OrganizationRow) =>
  db.insertInto('organizations').values(org).execute();

const byId = precompiled((db, id: string) =>
  db.selectFrom('organizations').selectAll().where('id', '=', id),
);
/** Every SSO exchange and every request naming an organization reads it by id. */
export const findOrganizationById = async (
  db: Db,
  id: string,
): Promise<OrganizationRow | undefined> => (await byId(db, id))[0];

// One indexed lookup per candidate pattern (a JSON array), stopping at the first found. Its
// tables are declared: the candidates come in raw SQL (json_each), which hides nothing else.
// Writes to organizations change embed_origin_patterns (by trigger), which the cache's tags
// know (cache-tags.ts).
const anyPatternSqlite = precompiled(
  (db, patternsJson: string) =>
    db
      .selectFrom('embedOriginPatterns')
      .select('pattern')
      .where('pattern', 'in', sql<string>`(select value from json_each(${patternsJson}))`)
      .limit(1),
  { tables: ['embed_origin_patterns'] },
);
const anyPatternPg = precompiled((db, patterns: readonly string[]) =>
  db
    .selectFrom('embedOriginPatterns')
    .select('pattern')
    .where('pattern', '=', sql<string>`any(${patterns}::text[])`)
    .limit(1),
);

/** The statement anyOrganizationHasPattern runs, for a look at its plan. */
export const anyPatternStatement = (db: Db, engine: Engine, patterns: readonly string[]) =>
  engine === 'sqlite'
    ? anyPatternSqlite.bind(db, JSON.stringify(patterns))
    : anyPatternPg.bind(db, patterns);

/** Whether any organization's allow-list holds one of these normalized patterns. */
export const anyOrganizationHasPattern = async (
  db: Db,
  engine: Engine,
  patterns: readonly string[],
): Promise<boolean> =>
  (engine === 'sqlite'
    ? await anyPatternSqlite(db, JSON.stringify(patterns))
    : await anyPatternPg(db, patterns)
  ).length > 0;

export const findOrganizationBySlug = (db: Db, slug: string) =>
  db.selectFrom('organizations').selectAll().where('slug', '=', slug).executeTakeFirst();

/** The organization and the user's role in it, or undefined when absent or not a member. */
const forUser = precompiled((db, orgId: string, userId: string) =>
  db
    .selectFrom('members as m')
    .innerJoin('organizations as o', 'o.id', 'm.organizationId')
    .selectAll('o')
    .select('m.role')
    .where('m.userId', '=', userId)
    .where('m.organizationId', '=', orgId),
);
export const findOrganizationForUser = async (
  db: Db,
  orgId: string,
  userId: string,
): Promise<OrganizationWithRole | undefined> => (await forUser(db, orgId, userId))[0];

/**
 * The tables a page of a user's organizations reads (organizationsForUserQuery): what a page
 * built from it is cached under (organizationListVersion).
 */
export const ORGANIZATION_LIST_TABLES = [
  'organizations',
  'members',
] as const satisfies readonly VersionedTable[];

/**
 * A value that changes whenever a committed write may have changed any page of any user's
 * organizations: a page can be cached under it, exactly. `since`: see Store.version (on
 * PostgreSQL the API-key lookup reads this version in the same statement, so a request made
 * with a key usually needs no round trip of its own).
 */
export const organizationListVersion = (store: Store, since?: number) =>
  store.version(ORGANIZATION_LIST_TABLES, since);

type UserPage = { cursor?: string | undefined; limit: number; onlyOrgId?: string | undefined };

/**
 * The query behind listOrganizationsForUser. A page costs the same whatever the page number and
 * however many memberships the user or the store holds: the user's memberships after the
 * cursor come from `members_user_org` (user_id, organization_id) already in page order and are
 * cut to the page before the join, so at most `limit + 1` organizations are read by id. Joined
 * first and limited after, PostgreSQL planned a merge join that walked `organizations_pkey`
 * from its first row for a member of most organizations (24 ms for the last page of 10,000,
 * `npm run bench growth`); `o.id > cursor` repeats the cursor for the organizations side, which
 * the planner does not infer through the join. server/test/store/plans.test.ts pins the plans.
 */
export function organizationsForUserQuery(db: Db, userId: string, page: UserPage) {
  const { cursor, onlyOrgId } = page;
  let q = db
    .selectFrom((eb) => {
      let mine = eb
        .selectFrom('members')
        .select(['organizationId', 'role'])
        .where('userId', '=', userId);
      if (cursor) mine = mine.where('organizationId', '>', cursor);
      if (onlyOrgId) mine = mine.where('organizationId', '=', onlyOrgId);
      return mine
        .orderBy('organizationId')
        .limit(page.limit + 1)
        .as('m');
    })
    .innerJoin('organizations as o', 'o.id', 'm.organizationId')
    .selectAll('o')
    .select('m.role');
  if (cursor) q = q.where('o.id', '>', cursor);
  return q.orderBy('m.organizationId');
}

/** One keyset page (`limit + 1` rows, to know whether more follow) of the user's organizations. */
export const listOrganizationsForUser = (
  db: Db,
  userId: string,
  page: UserPage,
): Promise<OrganizationWithRole[]> => organizationsForUserQuery(db, userId, page).execute();

/**
 * The organization row, locked until the transaction `tx` ends (after the write lock, see
 * takeWriteLock): changes to the organization, its secret and its members' roles take turns.
 */
export async function findOrganizationForUpdate(
  tx: Db,
  engine: Engine,
  id: string,
): Promise<OrganizationRow | undefined> {
  const q = tx.selectFrom('organizations').selectAll().where('id', '=', id);
  if (engine !== 'postgres') return q.executeTakeFirst();
  await takeWriteLock(tx, engine);
  return q.forUpdate().executeTakeFirst();
}

export const updateOrganizationRow = (
  db: Db,
  id: string,
  patch: Updateable<OrganizationsTable>,
): Promise<OrganizationRow | undefined> =>
  db.updateTable('organizations').set(patch).where('id', '=', id).returningAll().executeTakeFirst();

/**
 * Deletes the organization (its members, data sources and embed origin patterns go by
 * foreign-key cascade) and the session revocations, used SSO `jti`s and embed handoff codes
 * kept for it; returns the deleted row.
 */
export async function deleteOrganizationRow(
  tx: Db,
  id: string,
): Promise<OrganizationRow | undefined> {
  const deleted = await tx
    .deleteFrom('organizations')
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  if (!deleted) return undefined;
  await tx.deleteFrom('revokedSessions').where('organizationId', '=', id).execute();
  await tx.deleteFrom('ssoJti').where('organizationId', '=', id).execute();
  await tx.deleteFrom('embedHandoffs').where('organizationId', '=', id).execute();
  return deleted;
}
