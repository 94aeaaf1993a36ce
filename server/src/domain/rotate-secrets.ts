import { SECRET_FIELDS } from '@bridgekit/contract';
import type { Updateable } from 'kysely';
import type { Deps } from '../deps';
import { dataSourcesAfter } from '../store/data-sources';
import type { DataSourcesTable } from '../store/schema';
import { sealedColumn } from './serialize';

const BATCH = 200;

/** Re-encrypts every stored secret that is not under the current key; returns how many. */
export async function rotateSecrets(
  deps: Deps,
): Promise<{ organizations: number; dataSources: number }> {
  const { db } = deps.store;
  const box = deps.secretBox;
  let organizations = 0;
  let dataSources = 0;

  let cursor = '';
  for (;;) {
    const orgs = await db
      .selectFrom('organizations')
      .select(['id', 'jwtSecretSealed'])
      .where('id', '>', cursor)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    for (const org of orgs) {
      if (!box.isStale(org.jwtSecretSealed)) continue;
      const resealed = box.seal(
        box.open(org.jwtSecretSealed, org.id, 'jwtSecret'),
        org.id,
        'jwtSecret',
      );
      // Only if unchanged since read: a running bridge may have written a newer value meanwhile.
      const result = await db
        .updateTable('organizations')
        .set({ jwtSecretSealed: resealed })
        .where('id', '=', org.id)
        .where('jwtSecretSealed', '=', org.jwtSecretSealed)
        .executeTakeFirst();
      if (result.numUpdatedRows > 0n) organizations++;
    }
    if (orgs.length < BATCH) break;
    cursor = orgs[orgs.length - 1]!.id;
  }

  cursor = '';
  for (;;) {
    const rows = await dataSourcesAfter(db, cursor, BATCH);
    for (const row of rows) {
      let changed = false;
      for (const field of SECRET_FIELDS) {
        const column = sealedColumn[field];
        const sealed = row[column];
        if (!sealed || !box.isStale(sealed)) continue;
        const patch: Updateable<DataSourcesTable> = {
          [column]: box.seal(box.open(sealed, row.id, field), row.id, field),
        };
        // Only if unchanged since read, so a concurrent PATCH (new value or unset) is never undone.
        const result = await db
          .updateTable('dataSources')
          .set(patch)
          .where('id', '=', row.id)
          .where(column, '=', sealed)
          .executeTakeFirst();
        if (result.numUpdatedRows > 0n) changed = true;
      }
      if (changed) dataSources++;
    }
    if (rows.length < BATCH) break;
    cursor = rows[rows.length - 1]!.id;
  }
  return { organizations, dataSources };
}
