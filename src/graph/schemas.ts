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

/**
 * The HAS_SCHEMA edges among a topic's outgoing edges, in the order readers should trust them: the
 * topic's own value subject first, then its other own subjects, then subjects linked by a
 * RecordNameStrategy (edges with a `strategy` attribute, found through references or record names),
 * value before key within each group; stable otherwise.
 */
export function schemaEdgesValueFirst(outgoing: readonly Edge[]): Edge[] {
  const rank = (edge: Edge) =>
    (edge.attributes?.strategy === undefined ? 0 : 2) + (edge.attributes?.role === 'value' ? 0 : 1);
  return outgoing.filter((edge) => edge.edge_type === 'HAS_SCHEMA').sort((a, b) => rank(a) - rank(b));
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
