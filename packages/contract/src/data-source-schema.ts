import { z } from 'zod';
import { Cursor, Limit, Timestamp } from './common';

/** One column of a synced table or view. */
export const CatalogColumn = z.object({
  name: z.string(),
  /** The type as the database writes it, e.g. `character varying(80)`, `int(11)`. */
  type: z.string(),
  nullable: z.boolean(),
});
export type CatalogColumn = z.infer<typeof CatalogColumn>;

/** A table or view of the data source's database, as its last successful sync read it. */
export const CatalogTable = z.object({
  /** The schema (PostgreSQL) or database (MySQL) that holds it. */
  schema: z.string(),
  name: z.string(),
  /** TABLE (also partitioned and foreign tables) or VIEW (also materialized views). */
  kind: z.enum(['TABLE', 'VIEW']),
  /** In the table's own column order. */
  columns: z.array(CatalogColumn),
});
export type CatalogTable = z.infer<typeof CatalogTable>;

export const DataSourceSchema = z.object({
  dataSourceId: z.string(),
  /** When the catalog was read; null until a sync has succeeded (then `tables` is empty). */
  readAt: Timestamp.nullable(),
  /** True when the database held more tables than the bridge keeps (BRIDGE_SYNC_MAX_TABLES): the rest are left out. */
  truncated: z.boolean(),
  /** Tables and views in the whole catalog (all pages), after any cut. */
  tableCount: z.number().int(),
  /** This page's tables, ordered by schema then name (byte order). */
  tables: z.array(CatalogTable),
});
export type DataSourceSchema = z.infer<typeof DataSourceSchema>;

/** Pages of the catalog: `cursor` is the previous page's `nextCursor` (opaque). */
export const SchemaQuery = z.strictObject({
  limit: Limit.optional(),
  cursor: Cursor.regex(/^[0-9]{1,9}$/, 'Must be a nextCursor from a previous page').optional(),
});
export type SchemaQuery = z.infer<typeof SchemaQuery>;
