/**
 * Columns: how the formats that store scalar values by name (GraphML, GEXF, DOT) carry nodes and
 * edges. Each top-level field of a node but `id` is a column of that name (`node_type`, `system`,
 * `qualified_name`, `display_name`, `environment_id`, `cluster_id`, `catalog_type`, and any other
 * field the nodes carry, such as a traversal's `hop`); each field of an edge but `src_id` and
 * `dst_id` likewise (`edge_type`); and each key of `attributes` is a column named
 * `attributes.<key>`. Columns come in the order they are first met.
 *
 * A column's type comes from all its values: `boolean` when all are booleans, `long` when all are
 * safe integers, `double` when all are finite numbers, else `string`. In a `string` column, strings
 * are written as they are and every other value (objects, arrays, and the numbers or booleans of a
 * column whose values are of mixed types) as its JSON text. A null or missing value is not written:
 * null and absent read back the same, and so do `attributes: null` and `attributes: {}`.
 */

/** The type of a column, named as GraphML and GEXF name it. */
export type ColumnType = 'boolean' | 'long' | 'double' | 'string';

/** One column of nodes or of edges. */
export interface Column {
  /** Its name: the field's name, or `attributes.<key>` for an attribute. */
  readonly name: string;
  readonly type: ColumnType;
  /** Its value in one node or edge: undefined when null or missing. */
  value(element: object): unknown;
}

/** The prefix of the columns of attributes. */
export const ATTRIBUTE_PREFIX = 'attributes.';

/** The columns of nodes: every field but `id`, then the attributes. */
export function nodeColumns(nodes: Iterable<object>): Column[] {
  return columnsOf(nodes, new Set(['id', 'attributes']));
}

/** The columns of edges: every field but `src_id` and `dst_id`, then the attributes. */
export function edgeColumns(edges: Iterable<object>): Column[] {
  return columnsOf(edges, new Set(['src_id', 'dst_id', 'attributes']));
}

/**
 * The text of a value in a column: strings as they are, numbers and booleans in JavaScript's form
 * (`6`, `0.5`, `1e+21`, `true`), other values as JSON.
 */
export function columnText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

type Kind = ColumnType | 'json';

function kindOf(value: unknown): Kind {
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number')
    return Number.isSafeInteger(value) ? 'long' : Number.isFinite(value) ? 'double' : 'json';
  if (typeof value === 'string') return 'string';
  return 'json';
}

function merge(known: Kind | undefined, kind: Kind): Kind {
  if (known === undefined || known === kind) return kind;
  if ((known === 'long' && kind === 'double') || (known === 'double' && kind === 'long')) return 'double';
  return 'string';
}

function columnsOf(elements: Iterable<object>, excluded: ReadonlySet<string>): Column[] {
  const fields = new Map<string, Kind>();
  const attributes = new Map<string, Kind>();
  for (const element of elements) {
    for (const [name, value] of Object.entries(element)) {
      if (excluded.has(name) || value === null || value === undefined) continue;
      fields.set(name, merge(fields.get(name), kindOf(value)));
    }
    const attributeValues = (element as { attributes?: Record<string, unknown> | null }).attributes;
    if (!attributeValues) continue;
    for (const [name, value] of Object.entries(attributeValues)) {
      if (value === null || value === undefined) continue;
      attributes.set(name, merge(attributes.get(name), kindOf(value)));
    }
  }
  const type = (kind: Kind): ColumnType => (kind === 'json' ? 'string' : kind);
  return [
    ...[...fields].map(([name, kind]) => ({
      name,
      type: type(kind),
      value: (element: object) => own(element, name),
    })),
    ...[...attributes].map(([name, kind]) => ({
      name: `${ATTRIBUTE_PREFIX}${name}`,
      type: type(kind),
      value: (element: object) => {
        const values = (element as { attributes?: Record<string, unknown> | null }).attributes;
        return values ? own(values, name) : undefined;
      },
    })),
  ];
}

/** An own property's value (never an inherited one such as `constructor`), undefined for null. */
function own(object: object, name: string): unknown {
  return Object.hasOwn(object, name) ? ((object as Record<string, unknown>)[name] ?? undefined) : undefined;
}
