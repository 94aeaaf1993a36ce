import type {
  CompiledQuery,
  OperationNode,
  QueryExecutorProvider,
  QueryResult,
  RawBuilder,
} from 'kysely';

/**
 * The tags of SQLite's result cache (sqlite-cached.ts): one per table. A read is cached under
 * the tables its query names; a write moves the tags of the tables it names and of every table
 * that changes with them (see ALSO_CHANGES and the schema's cascading foreign keys).
 *
 * A Kysely query names its tables in its query tree, so they are taken from there. Raw SQL
 * inside a query (`sql` fragments) may read or write tables the tree does not show: such a read
 * is cached only under tables declared for it (`precompiled(build, { tables })`, or
 * `runTagged(db, sql\`…\`, tables)`), and such a write, like any statement whose tables are not
 * known, moves every tag.
 */
/**
 * What the schema's triggers change beside the table they are on: a write to the key's table
 * also changes these. (Cascading foreign keys are read from the schema itself.)
 */
export const ALSO_CHANGES: Readonly<Record<string, readonly string[]>> = {
  // Migration 0011: embed_origin_patterns is kept from organizations.embed_allowed_origins.
  organizations: ['embed_origin_patterns'],
};

type Node = { readonly kind?: string } & Record<string, unknown>;

/** The tables a Kysely query tree names, or undefined when it holds raw SQL. */
export function tablesOfQuery(root: OperationNode): readonly string[] | undefined {
  const tables = new Set<string>();
  let raw = false;
  const visit = (value: unknown) => {
    if (raw || typeof value !== 'object' || value === null) return;
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    const node = value as Node;
    if (node.kind === 'RawNode') {
      raw = true;
      return;
    }
    if (node.kind === 'TableNode') {
      const table = node.table as { identifier: { name: string } };
      tables.add(table.identifier.name.toLowerCase());
      return;
    }
    // Values (parameters) hold no tables; anything else may.
    if (node.kind === 'ValueNode' || node.kind === 'PrimitiveValueListNode') return;
    for (const key in node) if (key !== 'kind') visit(node[key]);
  };
  visit(root);
  return raw ? undefined : [...tables];
}

// The tables of each precompiled statement, by SQL text: a statement run by its text finds here
// what a precompiled statement's text names.
const declared = new Map<string, readonly string[] | undefined>();

/** Records the tables of a statement compiled once (precompiled), by its SQL text. */
export function declareStatementTables(sqlText: string, tables: readonly string[] | undefined) {
  declared.set(sqlText, tables);
}

/** The tables declared for `sqlText`, or undefined when none were (or they are not known). */
export const declaredTables = (sqlText: string) => declared.get(sqlText);

const TABLES = Symbol('bridgekit.cacheTables');
type Tagged = CompiledQuery & { [TABLES]?: readonly string[] };

/**
 * Runs raw SQL whose tables are `tables`: those it writes (their tags move, and only theirs),
 * or for a read, every table it reads. For raw SQL on a hot path (a write whose tables are not
 * known would move every tag, emptying the whole cache). The tables travel on the compiled
 * query itself, so a statement whose text depends on its input (a VALUES list per batch)
 * needs no registry.
 */
export function runTagged<R>(
  // A Kysely instance or transaction (the store's Db; named by shape, as db.ts imports this).
  db: QueryExecutorProvider & {
    executeQuery<T>(query: CompiledQuery<T>): Promise<QueryResult<T>>;
  },
  query: RawBuilder<R>,
  tables: readonly string[],
): Promise<QueryResult<R>> {
  return db.executeQuery(withTables(query.compile(db), tables));
}

/** `query` carrying `tables` as its cache tags (none: it changes no rows, such as BEGIN). */
export const withTables = <Q extends CompiledQuery>(query: Q, tables: readonly string[]): Q =>
  ({ ...query, [TABLES]: tables }) as Q;

/** The tables runTagged gave a compiled query, if it did. */
export const taggedTables = (query: CompiledQuery): readonly string[] | undefined =>
  (query as Tagged)[TABLES];
