/**
 * How a topic's schemas are read from the graph, in one place: a topic links to the SCHEMA nodes of
 * its subjects with HAS_SCHEMA edges whose attribute `role` is `value` or `key`
 * (`src/extraction/schemas.ts`), and a SCHEMA node lists its top-level fields in the attribute
 * `fields` (`[{ name, type, description?, fields? }]`). Used by the OpenLineage `schema` facet, the
 * catalogs' upstream chain and the `SELECT *` expansion.
 */
import type { Edge, Node } from './model.js';

/** A field of a SCHEMA node's `fields` attribute, as stored (only `name` is certain to be a string). */
export type StoredSchemaField = Record<string, unknown> & { name: string };

/** The HAS_SCHEMA edges among a topic's outgoing edges, value schemas first (stable otherwise). */
export function schemaEdgesValueFirst(outgoing: readonly Edge[]): Edge[] {
  return outgoing
    .filter((edge) => edge.edge_type === 'HAS_SCHEMA')
    .sort((a, b) => (a.attributes?.role === 'value' ? -1 : 0) - (b.attributes?.role === 'value' ? -1 : 0));
}

/** The fields of a SCHEMA node that have a string `name`, in schema order; [] when it has none. */
export function storedSchemaFields(schema: Node | undefined): StoredSchemaField[] {
  const fields = schema?.attributes?.fields;
  if (!Array.isArray(fields)) return [];
  return fields.filter(
    (field: unknown): field is StoredSchemaField =>
      typeof field === 'object' && field !== null && typeof (field as { name?: unknown }).name === 'string',
  );
}
