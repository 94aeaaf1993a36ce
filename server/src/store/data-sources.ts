import type { Updateable } from 'kysely';
import type { Db, Engine } from './db';
import type { DataSourcesTable } from './schema';
import { takeWriteLock } from './write-lock';

export type DataSourceRow = DataSourcesTable;

export const insertDataSource = (db: Db, row: DataSourceRow) =>
  db.insertInto('dataSources').values(row).execute();

export const findDataSource = (db: Db, orgId: string, id: string) =>
  db
    .selectFrom('dataSources')
    .selectAll()
    .where('organizationId', '=', orgId)
    .where('id', '=', id)
    .executeTakeFirst();

/**
 * The row, locked until the transaction `tx` ends (after the write lock, see takeWriteLock), so
 * a PATCH never deadlocks with a concurrent DELETE or key rotation.
 */
export async function findDataSourceForUpdate(tx: Db, engine: Engine, orgId: string, id: string) {
  const q = tx
    .selectFrom('dataSources')
    .selectAll()
    .where('organizationId', '=', orgId)
    .where('id', '=', id);
  if (engine !== 'postgres') return q.executeTakeFirst();
  await takeWriteLock(tx, engine);
  return q.forUpdate().executeTakeFirst();
}

export function listDataSources(
  db: Db,
  orgId: string,
  page: { cursor?: string | undefined; limit: number },
) {
  let q = db.selectFrom('dataSources').selectAll().where('organizationId', '=', orgId);
  if (page.cursor) q = q.where('id', '>', page.cursor);
  return q
    .orderBy('id')
    .limit(page.limit + 1)
    .execute();
}

export const updateDataSourceRow = (
  db: Db,
  orgId: string,
  id: string,
  patch: Updateable<DataSourcesTable>,
) =>
  db
    .updateTable('dataSources')
    .set(patch)
    .where('organizationId', '=', orgId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();

export const deleteDataSourceRow = (db: Db, orgId: string, id: string) =>
  db
    .deleteFrom('dataSources')
    .where('organizationId', '=', orgId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();

/** Every data source, in id order, a page at a time (for key rotation). */
export const dataSourcesAfter = (db: Db, cursor: string, limit: number) =>
  db
    .selectFrom('dataSources')
    .selectAll()
    .where('id', '>', cursor)
    .orderBy('id')
    .limit(limit)
    .execute();
