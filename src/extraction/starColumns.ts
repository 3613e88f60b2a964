/**
 * Column lineage through `SELECT *`, once topic schemas are known (`docs/sql-lineage.md` sections 4
 * and 5). Extraction parses Flink statements and ksqlDB queries in phase 2, before Schema Registry
 * is read in phase 3, so a star over a topic whose columns the statement does not declare reaches the
 * PRODUCES edge attribute `column_lineage` (`EdgeColumnLineage`, `streamProcessing.ts`) as one entry
 * with output `*` and input column `*`. After phase 3, `extract()` rewrites such entries with the
 * field names of the input topic's value schema.
 *
 * Rules of `expandStarColumns` (entries are read in order; the parser emits each output's direct
 * entry, then that output's indirect entries, so a star's filters and join keys follow it):
 *
 * - A *direct star entry* has output `*`, a direct kind (`identity`, `transformation` or
 *   `aggregation`) and inputs that are all `{ dataset: D, column: '*' }` with D a resolved topic
 *   node id. When every D has known fields, it becomes one entry per field f, in schema order:
 *   `{ output: f, kind, inputs: [{ dataset: D, column: f }] }`. Several inputs (a UNION of stars)
 *   expand only when every input has the same field names in the same order; each entry then lists
 *   f of every input. Otherwise the entry stays as it is.
 * - An *indirect star entry* (kind `filter`, `join_key`, `group_by` or `window`, output `*`) belongs to the star group it
 *   follows: the nearest earlier direct star entry, with no entry of another output in between. When
 *   that group was expanded, it becomes one entry per field of the group (same kind, same inputs);
 *   otherwise it stays as it is.
 * - Entries of explicitly named outputs are never changed. A star field with the same name as an
 *   explicit output gives a second entry of that name; the two are not merged. The order of entries
 *   is kept: expanded entries take the place of the star entry they replace.
 * - Unresolved inputs (`resolved: false`) are never expanded: there is no schema to read.
 *
 * `valueSchemaFields` finds the field names of a topic node from the graph: the topic's HAS_SCHEMA
 * edges with attribute `role: 'value'` (`schemas.ts`: TopicNameStrategy `{topic}-value`, or a
 * TopicRecordNameStrategy subject). With several value schemas, the `{topic}-value` subject is used;
 * without it, several schemas (several record types on one topic) leave the fields unknown. A schema
 * whose `fields` are absent or empty (a type we do not read, or a text that did not parse) leaves
 * them unknown too. Key-schema fields are not added.
 *
 * Pure: no I/O.
 */
import type { Edge, Node } from '../graph/model.js';
import { storedSchemaFields } from '../graph/schemas.js';
import type { EdgeColumnLineage } from './streamProcessing.js';

/**
 * The value-schema field names of a dataset (a topic node id), in schema order; undefined when they
 * are not known.
 */
export type FieldsOfDataset = (datasetId: string) => readonly string[] | undefined;

/** The output name and input column of a star: every column of the input. */
export const STAR = '*';

/** `column_lineage` kinds that are indirect (they apply to every output column, as in OpenLineage). */
export const INDIRECT_KINDS: ReadonlySet<string> = new Set(['filter', 'join_key', 'group_by', 'window']);

/** True when `value` has the shape of a `column_lineage` attribute (`EdgeColumnLineage[]`). */
export function isEdgeColumnLineage(value: unknown): value is EdgeColumnLineage[] {
  return (
    Array.isArray(value) &&
    value.every(
      (entry: unknown) =>
        typeof entry === 'object' &&
        entry !== null &&
        typeof (entry as { output?: unknown }).output === 'string' &&
        typeof (entry as { kind?: unknown }).kind === 'string' &&
        Array.isArray((entry as { inputs?: unknown }).inputs) &&
        (entry as { inputs: unknown[] }).inputs.every(
          (input) =>
            typeof input === 'object' &&
            input !== null &&
            typeof (input as { dataset?: unknown }).dataset === 'string' &&
            typeof (input as { column?: unknown }).column === 'string',
        ),
    )
  );
}

/** True when some entry has output `*` (the only entries `expandStarColumns` may change). */
export function hasStarColumns(columns: readonly EdgeColumnLineage[]): boolean {
  return columns.some((entry) => entry.output === STAR);
}

/** The field names a direct star entry expands to, or undefined when it cannot be expanded. */
function starFields(entry: EdgeColumnLineage, fieldsOfDataset: FieldsOfDataset): readonly string[] | undefined {
  if (entry.inputs.length === 0) return undefined;
  let fields: readonly string[] | undefined;
  for (const input of entry.inputs) {
    if (input.column !== STAR || input.resolved === false) return undefined;
    const known = fieldsOfDataset(input.dataset);
    if (!known || known.length === 0) return undefined;
    if (fields === undefined) fields = known;
    else if (known.length !== fields.length || known.some((name, index) => name !== fields![index])) return undefined;
  }
  return fields;
}

/**
 * Expands the star entries of one edge's `column_lineage` by the rules above.
 * @param columns the edge attribute, in the parser's order.
 * @param fieldsOfDataset value-schema field names of a topic node id (undefined when unknown).
 * @returns the rewritten entries (new objects; `columns` is not changed), or `columns` itself when
 *   no entry was expanded.
 */
export function expandStarColumns(
  columns: readonly EdgeColumnLineage[],
  fieldsOfDataset: FieldsOfDataset,
): readonly EdgeColumnLineage[] {
  const result: EdgeColumnLineage[] = [];
  let expanded = false;
  // Fields of the star group being read: set by a direct star entry (undefined when it stayed `*`),
  // cleared by an entry of another output.
  let group: readonly string[] | undefined;
  // Columns the stars expanded so far add before the entry being read, and the position of the group.
  let shift = 0;
  let groupStart = 0;
  const at = (entry: EdgeColumnLineage, position: number) =>
    entry.position === undefined ? {} : { position, query_columns: entry.query_columns };
  const shifted = (entry: EdgeColumnLineage) =>
    entry.position === undefined || shift === 0 ? entry : { ...entry, position: entry.position + shift };
  for (const entry of columns) {
    if (entry.output !== STAR) {
      group = undefined;
      result.push(shifted(entry));
      continue;
    }
    if (!INDIRECT_KINDS.has(entry.kind)) {
      group = starFields(entry, fieldsOfDataset);
      if (!group) {
        result.push(shifted(entry));
        continue;
      }
      groupStart = (entry.position ?? 0) + shift;
      group.forEach((field, index) => {
        result.push({
          output: field,
          kind: entry.kind,
          inputs: entry.inputs.map((input) => ({ dataset: input.dataset, column: field })),
          ...at(entry, groupStart + index),
        });
      });
      shift += group.length - 1;
      expanded = true;
      continue;
    }
    if (!group) {
      result.push(shifted(entry));
      continue;
    }
    group.forEach((field, index) => {
      result.push({
        output: field,
        kind: entry.kind,
        inputs: entry.inputs.map((input) => ({ ...input })),
        ...at(entry, groupStart + index),
      });
    });
  }
  if (!expanded) return columns;
  if (shift === 0) return result;
  return result.map((entry) =>
    entry.query_columns === undefined ? entry : { ...entry, query_columns: entry.query_columns + shift },
  );
}

/**
 * Names the outputs of a Flink INSERT without a column list after the sink's columns: Flink writes
 * the query's columns to the sink's by position. Applied where the graph is read (the column graph,
 * the OpenLineage `columnLineage` facet), so the recorded attribute depends on the statement only, not
 * on whether the sink's schema could be read in that extraction. Entries with a `position`
 * (`EdgeColumnLineage`) take the name at that position in the first of `sinkColumns` that has as many
 * names as the query has columns (`query_columns`); when none has, or a `*` of unknown columns is
 * left among them (its width is not known), they keep the query's names. Either way `position` and
 * `query_columns` are dropped from the entries returned.
 * @param columns the edge attribute (stars expanded by `expandStarColumns` where they could be).
 * @param sinkColumns candidate column lists of the sink, in order of preference (`sinkColumnCandidates`).
 * @returns new entries, or `columns` itself when none has a position.
 */
export function namePositionalOutputs(
  columns: readonly EdgeColumnLineage[],
  sinkColumns: ReadonlyArray<readonly string[] | undefined>,
): readonly EdgeColumnLineage[] {
  const positioned = columns.filter((entry) => entry.position !== undefined);
  if (positioned.length === 0) return columns;
  const width = positioned[0]!.query_columns;
  const names =
    width === undefined || positioned.some((entry) => entry.output === STAR)
      ? undefined
      : sinkColumns.find((candidate) => candidate !== undefined && candidate.length === width);
  return columns.map(({ position, query_columns: _width, ...entry }) =>
    position !== undefined && names?.[position] !== undefined ? { ...entry, output: names[position] } : entry,
  );
}

/**
 * The column lists a Flink table over a topic may have, in order of preference: the value schema's
 * fields; the key schema's fields, then the value fields the key does not have (a table whose key
 * columns are not in its value).
 */
export function sinkColumnCandidates(
  valueFields: readonly string[],
  keyFields: readonly string[],
): Array<readonly string[]> {
  const candidates: Array<readonly string[]> = [];
  if (valueFields.length > 0) candidates.push(valueFields);
  if (keyFields.length > 0)
    candidates.push([...keyFields, ...valueFields.filter((field) => !keyFields.includes(field))]);
  return candidates;
}

/**
 * True when `columnLineage` (an edge's `column_lineage` attribute, not yet checked) is an array with
 * an entry that carries a query position (`namePositionalOutputs` has work to do).
 */
export function hasPositionalOutputs(columnLineage: unknown): columnLineage is EdgeColumnLineage[] {
  return (
    Array.isArray(columnLineage) &&
    columnLineage.some((entry: unknown) => typeof (entry as { position?: unknown } | null)?.position === 'number')
  );
}

/** Field names of a SCHEMA node, in schema order; undefined when it lists none. */
function schemaFieldNames(schema: Node | undefined): readonly string[] | undefined {
  const names = storedSchemaFields(schema).map((field) => field.name);
  return names.length > 0 ? names : undefined;
}

/**
 * `fieldsOfDataset` over a graph: the field names of a topic's value schema, found through its
 * HAS_SCHEMA edges (`role: 'value'`) by the rules above.
 * @param hasSchemaEdges edges of the graph; only HAS_SCHEMA edges with role `value` are used.
 * @param nodeOf the node of an id (the topic, for its name; the schema, for its fields).
 */
export function valueSchemaFields(
  hasSchemaEdges: Iterable<Edge>,
  nodeOf: (nodeId: string) => Node | undefined,
): FieldsOfDataset {
  const valueSchemas = new Map<string, string[]>();
  for (const edge of hasSchemaEdges) {
    if (edge.edge_type !== 'HAS_SCHEMA' || edge.attributes?.role !== 'value') continue;
    const list = valueSchemas.get(edge.src_id);
    if (list) list.push(edge.dst_id);
    else valueSchemas.set(edge.src_id, [edge.dst_id]);
  }
  return (datasetId) => {
    const schemaIds = valueSchemas.get(datasetId);
    if (!schemaIds) return undefined;
    if (schemaIds.length === 1) return schemaFieldNames(nodeOf(schemaIds[0]!));
    const topic = nodeOf(datasetId)?.display_name;
    const subject = topic === undefined ? undefined : `${topic}-value`;
    const schema = schemaIds
      .map((id) => nodeOf(id))
      .find((node) => node !== undefined && node.qualified_name === subject);
    return schemaFieldNames(schema);
  };
}
