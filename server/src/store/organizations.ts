import type { Db } from './db';
import type { OrganizationsTable } from './schema';

export type OrganizationRow = OrganizationsTable;
export type OrganizationWithRole = OrganizationRow & { role: string };

export const insertOrganization = (db: Db, org: OrganizationRow) =>
  db.insertInto('organizations').values(org).execute();

export const findOrganizationById = (db: Db, id: string) =>
  db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();

export const findOrganizationBySlug = (db: Db, slug: string) =>
  db.selectFrom('organizations').selectAll().where('slug', '=', slug).executeTakeFirst();

/** The organization and the user's role in it, or undefined when absent or not a member. */
export const findOrganizationForUser = (
  db: Db,
  orgId: string,
  userId: string,
): Promise<OrganizationWithRole | undefined> =>
  db
    .selectFrom('members as m')
    .innerJoin('organizations as o', 'o.id', 'm.organizationId')
    .selectAll('o')
    .select('m.role')
    .where('m.userId', '=', userId)
    .where('m.organizationId', '=', orgId)
    .executeTakeFirst();

/** One keyset page (`limit + 1` rows, to know whether more follow) of the user's organizations. */
export function listOrganizationsForUser(
  db: Db,
  userId: string,
  page: { cursor?: string | undefined; limit: number; onlyOrgId?: string | undefined },
): Promise<OrganizationWithRole[]> {
  let q = db
    .selectFrom('members as m')
    .innerJoin('organizations as o', 'o.id', 'm.organizationId')
    .selectAll('o')
    .select('m.role')
    .where('m.userId', '=', userId);
  if (page.cursor) q = q.where('m.organizationId', '>', page.cursor);
  if (page.onlyOrgId) q = q.where('m.organizationId', '=', page.onlyOrgId);
  return q
    .orderBy('m.organizationId')
    .limit(page.limit + 1)
    .execute();
}
