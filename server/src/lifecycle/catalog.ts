import type { Dialect } from '@bridgekit/contract';
import type { Connection } from '../verify/connection';

export interface CatalogColumnRead {
  name: string;
  type: string;
  nullable: boolean;
}

export interface CatalogTableRead {
  schema: string;
  name: string;
  kind: 'TABLE' | 'VIEW';
  columns: CatalogColumnRead[];
}

export interface CatalogRead {
  /** In schema, name order (byte-wise), at most `maxTables`. */
  tables: CatalogTableRead[];
  /** The database held more than `maxTables`. */
  truncated: boolean;
}

const PG_TABLES = `
select c.oid::text as "oid", n.nspname as "schema", c.relname as "name",
  case when c.relkind in ('v', 'm') then 'VIEW' else 'TABLE' end as "kind"
from pg_catalog.pg_class c
join pg_catalog.pg_namespace n on n.oid = c.relnamespace
where c.relkind in ('r', 'p', 'f', 'v', 'm')
  and n.nspname not in ('pg_catalog', 'information_schema')
  and n.nspname not like 'pg\\_toast%' and n.nspname not like 'pg\\_temp\\_%'
order by n.nspname collate "C", c.relname collate "C"
limit $1`;

const PG_COLUMNS = `
select a.attrelid::text as "oid", a.attname as "name",
  pg_catalog.format_type(a.atttypid, a.atttypmod) as "type", not a.attnotnull as "nullable"
from pg_catalog.pg_attribute a
where a.attrelid = any($1::oid[]) and a.attnum > 0 and not a.attisdropped
order by a.attrelid, a.attnum`;

const MYSQL_SYSTEM = `('mysql', 'information_schema', 'performance_schema', 'sys')`;

const MYSQL_TABLES = `
select table_schema as \`schema\`, table_name as \`name\`,
  case when table_type = 'VIEW' then 'VIEW' else 'TABLE' end as \`kind\`
from information_schema.tables
where table_schema not in ${MYSQL_SYSTEM} and (database() is null or table_schema = database())
order by binary table_schema, binary table_name
limit ?`;

const MYSQL_COLUMNS = `
select table_schema as \`schema\`, table_name as \`table\`, column_name as \`name\`,
  column_type as \`type\`, is_nullable = 'YES' as \`nullable\`
from information_schema.columns
where table_schema not in ${MYSQL_SYSTEM} and (database() is null or table_schema = database())
order by table_schema, table_name, ordinal_position`;

const str = (v: unknown) => (Buffer.isBuffer(v) ? v.toString('utf8') : String(v));
const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
const sortTables = (tables: CatalogTableRead[]) =>
  tables.sort((a, b) => byBytes(a.schema, b.schema) || byBytes(a.name, b.name));

async function readPostgres(connection: Connection, maxTables: number): Promise<CatalogRead> {
  const rows = await connection.query(PG_TABLES, [maxTables + 1]);
  const truncated = rows.length > maxTables;
  const byOid = new Map<string, CatalogTableRead>();
  for (const row of rows.slice(0, maxTables)) {
    byOid.set(str(row.oid), {
      schema: str(row.schema),
      name: str(row.name),
      kind: row.kind === 'VIEW' ? 'VIEW' : 'TABLE',
      columns: [],
    });
  }
  if (byOid.size > 0) {
    const columns = await connection.query(PG_COLUMNS, [[...byOid.keys()]]);
    for (const col of columns) {
      byOid.get(str(col.oid))?.columns.push({
        name: str(col.name),
        type: str(col.type),
        nullable: Boolean(col.nullable),
      });
    }
  }
  return { tables: sortTables([...byOid.values()]), truncated };
}

async function readMysql(connection: Connection, maxTables: number): Promise<CatalogRead> {
  const rows = await connection.query(MYSQL_TABLES, [maxTables + 1]);
  const truncated = rows.length > maxTables;
  const byKey = new Map<string, CatalogTableRead>();
  for (const row of rows.slice(0, maxTables)) {
    const table: CatalogTableRead = {
      schema: str(row.schema),
      name: str(row.name),
      kind: str(row.kind) === 'VIEW' ? 'VIEW' : 'TABLE',
      columns: [],
    };
    byKey.set(JSON.stringify([table.schema, table.name]), table);
  }
  if (byKey.size > 0) {
    for (const col of await connection.query(MYSQL_COLUMNS)) {
      byKey.get(JSON.stringify([str(col.schema), str(col.table)]))?.columns.push({
        name: str(col.name),
        type: str(col.type),
        nullable: Number(col.nullable) === 1,
      });
    }
  }
  return { tables: sortTables([...byKey.values()]), truncated };
}

/**
 * Reads the tables and views with their columns, at most `maxTables`: on PostgreSQL every
 * user schema of the connected database; on MySQL the connected database, or every user
 * database when none is named.
 */
export function readCatalog(
  dialect: Dialect,
  connection: Connection,
  maxTables: number,
): Promise<CatalogRead> {
  return dialect === 'MYSQL'
    ? readMysql(connection, maxTables)
    : readPostgres(connection, maxTables);
}
