import type { Insertable } from 'kysely';
import type { CatalogRead } from '../lifecycle/catalog';
import type { Db } from './db';
import type { CatalogColumnsTable, CatalogTablesTable } from './schema';

// Rows per INSERT: well under both engines' limits on bound parameters.
const BATCH = 500;

/** `rows` in slices of BATCH. */
function* batches<T>(rows: T[]) {
  for (let i = 0; i < rows.length; i += BATCH) yield rows.slice(i, i + BATCH);
}

/**
 * Replaces the data source's catalog with `catalog` and marks the sync SUCCEEDED, in one
 * transaction, if the sync that started at `startedAt` still holds the lease (a sync taken over
 * as abandoned must not overwrite its successor). False when it no longer does.
 */
export function saveCatalog(
  db: Db,
  id: string,
  startedAt: string,
  catalog: CatalogRead,
  readAt: string,
  /** Runs in the same transaction once the catalog is saved (the sync's event). */
  andThen?: (tx: Db) => Promise<void>,
): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const claimed = await tx
      .updateTable('dataSources')
      .set({
        lastSyncStatus: 'SUCCEEDED',
        lastSuccessfulSyncAt: readAt,
        hasCompletedFirstSync: 1,
        syncErrorMessage: null,
        syncStartedAt: null,
        catalogReadAt: readAt,
        catalogTruncated: catalog.truncated ? 1 : 0,
        catalogTableCount: catalog.tables.length,
      })
      .where('id', '=', id)
      .where('syncStartedAt', '=', startedAt)
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1) return false;
    await tx.deleteFrom('catalogColumns').where('dataSourceId', '=', id).execute();
    await tx.deleteFrom('catalogTables').where('dataSourceId', '=', id).execute();
    const tables: Insertable<CatalogTablesTable>[] = catalog.tables.map((t, position) => ({
      dataSourceId: id,
      position,
      schemaName: t.schema,
      tableName: t.name,
      kind: t.kind,
    }));
    const columns: Insertable<CatalogColumnsTable>[] = catalog.tables.flatMap((t, tablePosition) =>
      t.columns.map((c, position) => ({
        dataSourceId: id,
        tablePosition,
        position,
        columnName: c.name,
        columnType: c.type,
        nullable: c.nullable ? 1 : 0,
      })),
    );
    for (const rows of batches(tables)) await tx.insertInto('catalogTables').values(rows).execute();
    for (const rows of batches(columns))
      await tx.insertInto('catalogColumns').values(rows).execute();
    await andThen?.(tx);
    return true;
  });
}

/** One page of tables (after `cursor`, a position) with their columns, in position order. */
export async function catalogPage(
  db: Db,
  id: string,
  page: { cursor?: number | undefined; limit: number },
) {
  let q = db
    .selectFrom('catalogTables')
    .select(['position', 'schemaName', 'tableName', 'kind'])
    .where('dataSourceId', '=', id);
  if (page.cursor !== undefined) q = q.where('position', '>', page.cursor);
  const tables = await q
    .orderBy('position')
    .limit(page.limit + 1)
    .execute();
  const shown = tables.slice(0, page.limit);
  const first = shown[0]?.position;
  const last = shown.at(-1)?.position;
  const columns =
    first === undefined || last === undefined
      ? []
      : await db
          .selectFrom('catalogColumns')
          .select(['tablePosition', 'columnName', 'columnType', 'nullable'])
          .where('dataSourceId', '=', id)
          .where('tablePosition', '>=', first)
          .where('tablePosition', '<=', last)
          .orderBy('tablePosition')
          .orderBy('position')
          .execute();
  return { tables, columns };
}
