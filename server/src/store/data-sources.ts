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

/** A data source by id alone, for background work that has no organization in hand. */
export const findDataSourceById = (db: Db, id: string) =>
  db.selectFrom('dataSources').selectAll().where('id', '=', id).executeTakeFirst();

/** Records a health check's verdict; the record as it now is, or undefined if it is gone. */
export const recordHealth = (db: Db, id: string, result: { at: string; error?: string }) =>
  db
    .updateTable('dataSources')
    .set(
      result.error === undefined
        ? {
            lastHealthStatus: 'HEALTHY',
            lastHealthCheckAttemptAt: result.at,
            lastHealthyAt: result.at,
            healthErrorMessage: null,
          }
        : {
            lastHealthStatus: 'UNHEALTHY',
            lastHealthCheckAttemptAt: result.at,
            healthErrorMessage: result.error,
          },
    )
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();

/**
 * Takes the sync lease: SYNCING from `at`, unless a sync holds it since `staleBefore` or later
 * (one started earlier was abandoned: a killed process). The record, or undefined if held or gone.
 */
export const claimSync = (db: Db, id: string, at: string, staleBefore: string) =>
  db
    .updateTable('dataSources')
    .set({ lastSyncStatus: 'SYNCING', lastSyncAttemptAt: at, syncStartedAt: at })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('syncStartedAt', 'is', null), eb('syncStartedAt', '<', staleBefore)]))
    .returningAll()
    .executeTakeFirst();

/**
 * Ends the sync that started at `startedAt` as FAILED, if it still holds the lease; the record,
 * or undefined when it no longer held it.
 */
export const recordSyncFailure = (db: Db, id: string, startedAt: string, message: string) =>
  db
    .updateTable('dataSources')
    .set({ lastSyncStatus: 'FAILED', syncErrorMessage: message, syncStartedAt: null })
    .where('id', '=', id)
    .where('syncStartedAt', '=', startedAt)
    .returningAll()
    .executeTakeFirst();

/**
 * Gives the lease of the sync that started at `startedAt` back (a shutdown cut it short): the
 * status it had before, so another instance (or the next interval) syncs it.
 */
export const releaseSync = (
  db: Db,
  id: string,
  startedAt: string,
  status: DataSourcesTable['lastSyncStatus'],
) =>
  db
    .updateTable('dataSources')
    .set({ lastSyncStatus: status, syncStartedAt: null })
    .where('id', '=', id)
    .where('syncStartedAt', '=', startedAt)
    .execute();

/** Ids of every data source after `cursor`, in id order (for the scheduled sweeps). */
export const dataSourceIdsAfter = async (db: Db, cursor: string, limit: number) =>
  (
    await db
      .selectFrom('dataSources')
      .select('id')
      .where('id', '>', cursor)
      .orderBy('id')
      .limit(limit)
      .execute()
  ).map((r) => r.id);

/** How many data sources there are (all organizations). */
export const countDataSources = async (db: Db) =>
  Number(
    (
      await db
        .selectFrom('dataSources')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
