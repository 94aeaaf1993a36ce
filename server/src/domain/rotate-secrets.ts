import { SECRET_FIELDS } from '@bridgekit/contract';
import type { Updateable } from 'kysely';
import type { Deps } from '../deps';
import { dataSourcesAfter } from '../store/data-sources';
import { replaceKeyCheck } from '../store/key-checks';
import type { OrganizationRow } from '../store/organizations';
import type { DataSourcesTable } from '../store/schema';
import { resealEndpoints } from '../webhooks/endpoints';
import { JWT_SECRET_FIELD, PREVIOUS_JWT_SECRET_FIELD } from './jwt-secret';
import { sealedColumn } from './serialize';

const BATCH = 200;

type OrgSecrets = Pick<OrganizationRow, 'id' | 'jwtSecretSealed' | 'previousJwtSecretSealed'>;

/**
 * Re-seals an organization's jwtSecret and previous jwtSecret that are not under the current
 * key, each only if unchanged since read: a running bridge may have rotated it meanwhile.
 */
async function resealOrganization(deps: Deps, org: OrgSecrets): Promise<boolean> {
  const box = deps.secretBox;
  let changed = false;
  const columns = [
    ['jwtSecretSealed', JWT_SECRET_FIELD],
    ['previousJwtSecretSealed', PREVIOUS_JWT_SECRET_FIELD],
  ] as const;
  for (const [column, field] of columns) {
    const sealed = org[column];
    if (!sealed || !box.isStale(sealed)) continue;
    const result = await deps.store.db
      .updateTable('organizations')
      .set({ [column]: box.seal(box.open(sealed, org.id, field), org.id, field) })
      .where('id', '=', org.id)
      .where(column, '=', sealed)
      .executeTakeFirst();
    if (result.numUpdatedRows > 0n) changed = true;
  }
  return changed;
}

/**
 * Re-encrypts every stored secret that is not under the current key, then records the current
 * keys' check values; returns how many records changed.
 */
export async function rotateSecrets(
  deps: Deps,
): Promise<{ organizations: number; dataSources: number; webhookEndpoints: number }> {
  const { db } = deps.store;
  const box = deps.secretBox;
  let organizations = 0;
  let dataSources = 0;

  let cursor = '';
  for (;;) {
    const orgs = await db
      .selectFrom('organizations')
      .select(['id', 'jwtSecretSealed', 'previousJwtSecretSealed'])
      .where('id', '>', cursor)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    for (const org of orgs) {
      if (await resealOrganization(deps, org)) organizations++;
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
  const webhookEndpoints = await resealEndpoints(deps);
  // Everything is under the current keys now: instances must start with them from here on.
  const now = deps.now();
  await replaceKeyCheck(db, 'secret_key', deps.keyChecks.secret_key, now);
  await replaceKeyCheck(db, 'session_secret', deps.keyChecks.session_secret, now);
  return { organizations, dataSources, webhookEndpoints };
}
