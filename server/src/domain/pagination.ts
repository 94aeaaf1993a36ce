/** Turns a `limit + 1` keyset page into `{ data, pagination }`. */
export function toPage<Row extends { id: string }, Out>(
  rows: Row[],
  limit: number,
  map: (row: Row) => Out,
) {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  return {
    data: pageRows.map(map),
    pagination: { nextCursor: hasMore ? pageRows[pageRows.length - 1]!.id : null, hasMore },
  };
}

export const DEFAULT_LIMIT = 50;
