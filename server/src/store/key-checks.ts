import type { Db } from './db';

export type KeyName = 'secret_key' | 'session_secret';

/** The recorded check value of each key, by name. */
export async function readKeyChecks(db: Db): Promise<Map<KeyName, string>> {
  const rows = await db.selectFrom('keyChecks').select(['name', 'checkValue']).execute();
  return new Map(rows.map((r) => [r.name as KeyName, r.checkValue]));
}

/** Records `value` for `name` unless one is recorded already (the first instance's wins). */
export async function recordKeyCheck(db: Db, name: KeyName, value: string, at: Date) {
  await db
    .insertInto('keyChecks')
    .values({ name, checkValue: value, recordedAt: at.toISOString() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

/** Records `value` for `name`, replacing any (after a rotation). */
export async function replaceKeyCheck(db: Db, name: KeyName, value: string, at: Date) {
  await db
    .insertInto('keyChecks')
    .values({ name, checkValue: value, recordedAt: at.toISOString() })
    .onConflict((oc) =>
      oc.column('name').doUpdateSet({ checkValue: value, recordedAt: at.toISOString() }),
    )
    .execute();
}
