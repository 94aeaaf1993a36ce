import { type ColumnDefinitionBuilder, sql } from 'kysely';

export type Dialect = 'sqlite' | 'postgres';

/** Ids and slugs compare byte-wise on PostgreSQL too, so keyset pagination matches SQLite. */
export const byteOrder = (dialect: Dialect) => (col: ColumnDefinitionBuilder) =>
  dialect === 'postgres' ? col.modifyEnd(sql`collate "C"`) : col;
