/**
 * Column lineage of Kafka Connect connectors, where their configuration states it (issue 26,
 * item 1): a sink's field mapping, and the `column_lineage` attribute (`EdgeColumnLineage[]`, as
 * statements have it) of a CDC source's PRODUCES edges.
 *
 * - **Sink connectors** write each record's value fields under their own names. Their mapping is
 *   the CONNECTOR node's attribute `field_mapping` (`SinkFieldMapping`), which the column graph
 *   applies to each topic the connector reads (to the one topic of a table that names its
 *   `source_topic`). A field list narrows it: `fields.whitelist` / `fields.include` (JDBC-style sinks).
 * - **Single message transforms** (`transforms`, in order; the `$Value` forms; Apache Kafka and
 *   Confluent class names alike):
 *   - `ReplaceField`: `include`/`whitelist` keeps the named fields, `exclude`/`blacklist` drops them
 *     (from a field list; over every field, they are listed in `excluded`: the sink writes the
 *     topic's fields but those), `renames` (`old:new,...`) renames;
 *   - `ExtractField` (`field`): the value becomes that field; what follows reads inside it;
 *   - `Flatten`: nested fields become `a.b` (the delimiter `.` by default): names the graph already
 *     uses for nested fields, so nothing changes;
 *   - `Cast` (`spec`) and `MaskField` (`fields`): the named fields become `transformation`s;
 *   - transforms that do not touch the value's fields (`$Key` forms, `RegexRouter`,
 *     `TimestampRouter`, `InsertField` (adds fields), `ValueToKey`, `Filter`, `HeaderFrom`,
 *     `InsertHeader`, `DropHeaders`) change nothing;
 *   - any other transform: the mapping is not known, and no attribute is written (the walk keeps
 *     the hop as an unknown transformation).
 * - **Debezium CDC sources** (a topic prefix and a database class): a table's column `c` becomes the
 *   topic's `after.c` and `before.c` (`(after.*, identity, [table.*])`), or `c` itself when the
 *   envelope is unwrapped (`io.debezium.transforms.ExtractNewRecordState`, or `after.state.only`).
 *
 * Pure: no I/O.
 */
import type { EdgeColumnLineage } from './streamProcessing.js';
import { STAR } from './starColumns.js';

/** A connector's configuration, as the Connect API answers it. */
export type ConnectorConfig = Record<string, string | null | undefined>;

/** What the value's fields become, transform after transform. */
interface FieldMapping {
  /** Every field passes under its own name (a star), or only `fields` do. */
  star: boolean;
  /** Named outputs: output name -> input path and kind. */
  fields: Map<string, { input: string; kind: string }>;
  /** The struct the value was extracted from (`ExtractField`), prefixed to every input path. */
  prefix: string;
  /** With `star`: the fields (under `prefix`) it no longer passes (ReplaceField `exclude`). */
  excluded: Set<string>;
}

const list = (value: string | null | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

/** Transforms (by the last part of the class name) that leave the value's field names as they are. */
const NEUTRAL = new Set([
  'RegexRouter',
  'TimestampRouter',
  'TopicRegexRouter',
  'InsertField$Value',
  'ValueToKey',
  'Filter',
  'HeaderFrom$Value',
  'InsertHeader',
  'DropHeaders',
  'Flatten$Value',
]);

/** Applies one transform; false when its effect on the value's fields is not known. */
function applyTransform(mapping: FieldMapping, type: string, get: (key: string) => string | null | undefined): boolean {
  const name = type.split('.').pop() ?? type;
  if (name.endsWith('$Key') || NEUTRAL.has(name)) return true;
  switch (name) {
    case 'ReplaceField$Value':
      return replaceField(mapping, get);
    case 'ExtractField$Value': {
      const field = get('field');
      if (!field) return false;
      mapping.prefix = `${inputOf(mapping, field)}.`;
      mapping.star = true;
      mapping.fields.clear();
      mapping.excluded.clear();
      return true;
    }
    case 'Cast$Value':
      return retype(
        mapping,
        list(get('spec')).map((entry) => entry.split(':')[0]!.trim()),
      );
    case 'MaskField$Value':
      return retype(mapping, list(get('fields')));
    default:
      return false;
  }
}

/** The input path of an output field as the mapping stands. */
function inputOf(mapping: FieldMapping, output: string): string {
  return mapping.fields.get(output)?.input ?? `${mapping.prefix}${output}`;
}

function replaceField(mapping: FieldMapping, get: (key: string) => string | null | undefined): boolean {
  const include = list(get('include') ?? get('whitelist'));
  const exclude = new Set(list(get('exclude') ?? get('blacklist')));
  if (include.length > 0) keepOnly(mapping, include);
  for (const field of exclude) {
    mapping.fields.delete(field);
    if (mapping.star) mapping.excluded.add(field);
  }
  for (const entry of list(get('renames'))) {
    const [from, to] = entry.split(':').map((part) => part.trim());
    if (!from || !to) return false;
    const known = mapping.fields.get(from);
    if (!known && (!mapping.star || mapping.excluded.has(from))) continue;
    mapping.fields.delete(from);
    mapping.fields.set(to, known ?? { input: `${mapping.prefix}${from}`, kind: 'identity' });
  }
  return true;
}

function keepOnly(mapping: FieldMapping, names: readonly string[]): void {
  const kept = new Map<string, { input: string; kind: string }>();
  for (const name of names)
    if (mapping.fields.has(name) || (mapping.star && !mapping.excluded.has(name)))
      kept.set(name, mapping.fields.get(name) ?? { input: `${mapping.prefix}${name}`, kind: 'identity' });
  mapping.star = false;
  mapping.fields = kept;
  mapping.excluded.clear();
}

function retype(mapping: FieldMapping, names: readonly string[]): boolean {
  for (const name of names) {
    if (!mapping.fields.has(name) && (!mapping.star || mapping.excluded.has(name))) continue;
    mapping.fields.set(name, { input: inputOf(mapping, name), kind: 'transformation' });
  }
  return true;
}

/**
 * The field mapping of a connector's value: its field list, then its transforms in order; undefined
 * when a transform's effect is not known.
 */
function valueMapping(config: ConnectorConfig): FieldMapping | undefined {
  const mapping: FieldMapping = { star: true, fields: new Map(), prefix: '', excluded: new Set() };
  const listed = list(config['fields.whitelist'] ?? config['fields.include']);
  if (listed.length > 0) keepOnly(mapping, listed);
  for (const alias of list(config.transforms)) {
    const type = config[`transforms.${alias}.type`];
    if (!type) return undefined;
    if (!applyTransform(mapping, type, (key) => config[`transforms.${alias}.${key}`])) return undefined;
  }
  return mapping;
}

/**
 * A sink connector's field mapping, as the CONNECTOR node's `field_mapping` attribute holds it (the
 * column graph applies it to every topic the connector reads; `projections/columnGraph.ts`):
 * `all_fields` true when every field passes under its own name, read inside `struct` when set
 * (`ExtractField`), but those in `excluded` (ReplaceField `exclude`; top-level names inside
 * `struct`, absent when none); `fields` the named outputs, each with its input path and kind.
 */
export interface SinkFieldMapping {
  all_fields: boolean;
  struct: string | null;
  fields: Array<{ output: string; input: string; kind: string }>;
  excluded?: string[];
}

/**
 * Whether `all_fields` passes field `path` (a path under `struct`, nested fields dotted) under its own
 * name: not when its top-level field is `excluded`.
 */
export function passesAllFields(mapping: Pick<SinkFieldMapping, 'excluded'>, path: string): boolean {
  if (!mapping.excluded || mapping.excluded.length === 0) return true;
  const dot = path.indexOf('.');
  return !mapping.excluded.includes(dot < 0 ? path : path.slice(0, dot));
}

/**
 * The field mapping of a sink connector (its field list, then its transforms in order), or
 * undefined when a transform's effect on the fields is not known. It depends on the configuration
 * alone, never on the topics listed, so a failed topic listing never changes it.
 */
export function sinkFieldMapping(config: ConnectorConfig): SinkFieldMapping | undefined {
  const mapping = valueMapping(config);
  if (!mapping) return undefined;
  return {
    all_fields: mapping.star,
    struct: mapping.prefix === '' ? null : mapping.prefix.slice(0, -1),
    fields: [...mapping.fields].map(([output, { input, kind }]) => ({ output, input, kind })),
    ...(mapping.star && mapping.excluded.size > 0 ? { excluded: [...mapping.excluded] } : {}),
  };
}

/** Whether a CDC source writes the row itself rather than Debezium's `before`/`after` envelope. */
function unwrapped(config: ConnectorConfig): boolean {
  if ((config['after.state.only'] ?? '').toLowerCase() === 'true') return true;
  return list(config.transforms).some((alias) =>
    (config[`transforms.${alias}.type`] ?? '').endsWith('ExtractNewRecordState'),
  );
}

/**
 * The `column_lineage` of a Debezium CDC source's PRODUCES edge to a topic, from the table dataset
 * the topic carries: `after.*` and `before.*` from the table's columns, or `*` when unwrapped.
 */
export function cdcColumnLineage(config: ConnectorConfig, tableDataset: string): EdgeColumnLineage[] {
  const input = [{ dataset: tableDataset, column: STAR }];
  if (unwrapped(config)) return [{ output: STAR, kind: 'identity', inputs: input }];
  return [
    { output: `after.${STAR}`, kind: 'identity', inputs: input },
    { output: `before.${STAR}`, kind: 'identity', inputs: input },
  ];
}

/**
 * The `column_lineage` entries a sink's field mapping gives for the topics it reads, each with its
 * value-schema fields (for the OpenLineage `columnLineage` facet of the sink's output): every field
 * under its own name (unless renamed away or excluded; not listed inside an extracted struct, whose
 * fields the topic's schema does not name), and every named output. Empty when no topic has known fields and
 * nothing is named.
 */
export function mappedColumnLineage(
  mapping: SinkFieldMapping,
  topics: ReadonlyArray<{ dataset: string; fields: readonly string[] }>,
): EdgeColumnLineage[] {
  const renamedAway = new Set(
    mapping.fields.filter((entry) => entry.input !== entry.output).map((entry) => entry.input),
  );
  const named = new Set(mapping.fields.map((entry) => entry.output));
  const entries: EdgeColumnLineage[] = [];
  for (const { dataset, fields } of topics) {
    if (mapping.all_fields && mapping.struct === null)
      for (const field of fields)
        if (!renamedAway.has(field) && !named.has(field) && passesAllFields(mapping, field))
          entries.push({ output: field, kind: 'identity', inputs: [{ dataset, column: field }] });
    for (const entry of mapping.fields)
      entries.push({ output: entry.output, kind: entry.kind, inputs: [{ dataset, column: entry.input }] });
  }
  return entries;
}
