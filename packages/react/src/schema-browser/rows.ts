import type { CatalogColumn, CatalogTable } from '@bridgekit/contract';

/** One line of the tree: a table (level 1) or one of its columns (level 2). */
export type Row =
  | { type: 'table'; key: string; table: CatalogTable; open: boolean; pos: number; size: number }
  | {
      type: 'column';
      key: string;
      parent: string;
      column: CatalogColumn;
      pos: number;
      size: number;
    };

export const tableKey = (table: CatalogTable) => `${table.schema}.${table.name}`;

/**
 * The tree's lines for `query`. A table shows when its `schema.name` or a column name contains
 * the query; one found by a column alone opens on its matching columns. `toggled` holds the
 * tables the user opened or closed against that default.
 */
export function treeRows(
  tables: readonly CatalogTable[],
  query: string,
  toggled: ReadonlySet<string>,
): { rows: Row[]; matches: number } {
  const q = query.trim().toLowerCase();
  const rows: Row[] = [];
  const shown: Array<{
    table: CatalogTable;
    key: string;
    open: boolean;
    columns: CatalogColumn[];
  }> = [];
  for (const table of tables) {
    const key = tableKey(table);
    const byName = q === '' || key.toLowerCase().includes(q);
    const byColumn = byName ? [] : table.columns.filter((c) => c.name.toLowerCase().includes(q));
    if (!byName && byColumn.length === 0) continue;
    const open = byColumn.length > 0 !== toggled.has(key);
    shown.push({ table, key, open, columns: byColumn.length > 0 ? byColumn : table.columns });
  }
  shown.forEach(({ table, key, open, columns }, i) => {
    rows.push({ type: 'table', key, table, open, pos: i + 1, size: shown.length });
    if (!open) return;
    columns.forEach((column, j) => {
      rows.push({
        type: 'column',
        key: `${key}\u0000${column.name}`,
        parent: key,
        column,
        pos: j + 1,
        size: columns.length,
      });
    });
  });
  return { rows, matches: shown.length };
}
