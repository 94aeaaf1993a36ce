import { sql, type Updateable } from 'kysely';
import type { Db, Engine } from './db';
import type { DataSourcesTable } from './schema';

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
 * The row, locked until the transaction `tx` ends. On SQLite the transaction already has the
 * one connection to itself. On PostgreSQL the store-version row is taken first, then the row
 * `FOR UPDATE`: the order every write statement takes them in (its BEFORE STATEMENT trigger,
 * then its rows), so a PATCH never deadlocks with a concurrent DELETE or key rotation.
 */
export async function findDataSourceForUpdate(tx: Db, engine: Engine, orgId: string, id: string) {
  const q = tx
    .selectFrom('dataSources')
    .selectAll()
    .where('organizationId', '=', orgId)
    .where('id', '=', id);
  if (engine !== 'postgres') return q.executeTakeFirst();
  await sql`update store_version set version = version + 1 where id = 1`.execute(tx);
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
