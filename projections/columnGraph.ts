/**
 * The column-level graph (issue 26, item 1): which field of which dataset feeds which field of which
 * other dataset, and through which job. It is not stored: it is derived, edge by edge, from a
 * resident graph (any revision, so `as_of` needs nothing more) and walked lazily from one field, so a
 * question costs what it reaches, not the size of the graph.
 *
 * Where the column edges come from:
 *
 * - a job's PRODUCES edge attribute `column_lineage: [{ output, kind, inputs: [{ dataset, column }] }]`
 *   (Flink statements and ksqlDB queries, `src/extraction/streamProcessing.ts`; connectors whose
 *   configuration states their field mappings, `src/extraction/connectorFields.ts`): input field ->
 *   output field, through the job, typed by `kind` as OpenLineage types it (`COLUMN_TRANSFORMATIONS`:
 *   identity, transformation, aggregation are DIRECT; filter, join_key, group_by, window INDIRECT);
 *   an input or output `*` (a star whose fields were unknown) passes every field under its own name;
 * - a TRANSFORMS edge with the same attribute (catalog-reported column lineage), with no job;
 * - MATERIALIZES (Tableflow: topic -> materialized table -> catalog table) and the TRANSFORMS of a
 *   cluster link (mirror topic): every field under its own name, IDENTITY, with no job;
 * - anything else that moves data with no column lineage (a job without the attribute on that
 *   PRODUCES edge, a consumer group, a TRANSFORMS without it): a hop of **unknown transformation**,
 *   kept rather than dropped: it reaches the field `*` (the whole dataset, subtype `UNKNOWN`), and a
 *   walk on from `*` takes every column edge of that dataset, still `UNKNOWN`.
 *
 * A consumer group that is MEMBER_OF a job reads for that job: its reads are the job's. Field names
 * match case-insensitively through a ksqlDB query (SQL_QUERY: ksqlDB folds unquoted names to upper
 * case), and a query's output takes the spelling of the sink's registered schema when it has the
 * field under another case. A nested field (`after.order_id`) matches an entry of its struct
 * (`after`) and the other way round.
 */
import { mappedColumnLineage, passesAllFields } from '../src/extraction/connectorFields.js';
import { hasPositionalOutputs, namePositionalOutputs, sinkColumnCandidates } from '../src/extraction/starColumns.js';
import type { EdgeColumnLineage } from '../src/extraction/streamProcessing.js';
import { COLUMN_TRANSFORMATIONS } from '../src/openlineage/fromGraph.js';
import { JOB_NODE_TYPES, type Edge, type Node } from '../src/graph/model.js';
import type { ResidentGraph } from './residentGraph.js';

/** OpenLineage's transformation type of a column edge. */
export type ColumnLineageType = 'DIRECT' | 'INDIRECT';

/**
 * OpenLineage's transformation subtype (IDENTITY, TRANSFORMATION, AGGREGATION; JOIN, FILTER,
 * GROUP_BY, WINDOW, SORT, CONDITIONAL), or `UNKNOWN` for a hop whose column mapping is not known.
 */
export type ColumnLineageSubtype = string;

/** The field of an unknown-transformation hop: the whole dataset. */
export const ALL_FIELDS = '*';

/** One column edge as the walk takes it. */
export interface ColumnStep {
  /** The dataset node reached. */
  node_id: string;
  /** Its field, as the dataset spells it (or `*`). */
  field: string;
  /** The job node the edge goes through; null for a hop without a job (Tableflow, a mirror topic). */
  job: string | null;
  type: ColumnLineageType;
  subtype: ColumnLineageSubtype;
}

/** One entry of a `column_lineage` attribute, with one input. */
interface LineageEntry {
  output: string;
  dataset: string;
  column: string;
  type: ColumnLineageType;
  subtype: ColumnLineageSubtype;
}

/** A `column_lineage` attribute, indexed both ways (field keys folded when the engine folds case). */
interface ParsedLineage {
  folded: boolean;
  /**
   * Set when entries carry query positions (a Flink INSERT without a column list): the sink columns
   * their outputs were named after (`namePositionalOutputs`), joined, so a changed sink schema re-reads.
   */
  sinkKey?: string;
  /** Input dataset -> input field key -> entries. */
  byInput: Map<string, Map<string, LineageEntry[]>>;
  /** Output field key -> entries. */
  byOutput: Map<string, LineageEntry[]>;
  /** Every entry, in the attribute's order. */
  entries: LineageEntry[];
}

/** Parsed attributes, by edge value: an edge that changes is a new value, so the cache never goes stale. */
const parsedByEdge = new WeakMap<Edge, ParsedLineage | null>();

/** The transformation of a `column_lineage` kind; group_by and window are INDIRECT, an unknown kind UNKNOWN. */
export function transformationOfKind(kind: unknown): { type: ColumnLineageType; subtype: ColumnLineageSubtype } {
  if (typeof kind !== 'string') return { type: 'DIRECT', subtype: 'UNKNOWN' };
  return COLUMN_TRANSFORMATIONS[kind] ?? { type: 'DIRECT', subtype: 'UNKNOWN' };
}

/** Whether names are matched case-insensitively through this job (ksqlDB queries). */
export function foldsCase(job: Node | undefined): boolean {
  return job?.node_type === 'SQL_QUERY';
}

const keyOf = (name: string, folded: boolean) => (folded ? name.toLowerCase() : name);

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * The parsed `column_lineage` of an edge, or null when it has none (not an array). Entries that carry
 * query positions (a Flink INSERT without a column list) are named after the sink's columns by
 * position (`namePositionalOutputs`): `sinkColumns` gives the sink's candidate column lists
 * (`sinkColumnsOf`); without it they keep the query's names.
 */
export function edgeLineage(
  edge: Edge,
  folded: boolean,
  sinkColumns?: () => ReadonlyArray<readonly string[]>,
): ParsedLineage | null {
  const cached = parsedByEdge.get(edge);
  if (cached === null) return null;
  const attribute = edge.attributes?.column_lineage;
  let candidates: ReadonlyArray<readonly string[]> = [];
  let sinkKey: string | undefined;
  if (cached !== undefined ? cached.sinkKey !== undefined : hasPositionalOutputs(attribute)) {
    candidates = sinkColumns?.() ?? [];
    sinkKey = candidates.map((names) => names.join('\u0000')).join('\u0001');
  }
  if (cached !== undefined && cached.folded === folded && cached.sinkKey === sinkKey) return cached;
  let parsed: ParsedLineage | null = null;
  if (Array.isArray(attribute)) {
    parsed = { folded, byInput: new Map(), byOutput: new Map(), entries: [] };
    if (sinkKey !== undefined) parsed.sinkKey = sinkKey;
    const named =
      sinkKey === undefined ? attribute : namePositionalOutputs(attribute as EdgeColumnLineage[], candidates);
    for (const raw of named as unknown[]) {
      if (typeof raw !== 'object' || raw === null) continue;
      const { output, kind, inputs } = raw as { output?: unknown; kind?: unknown; inputs?: unknown };
      if (typeof output !== 'string' || !Array.isArray(inputs)) continue;
      const transformation = transformationOfKind(kind);
      for (const input of inputs as unknown[]) {
        const { dataset, column, resolved } = (input ?? {}) as {
          dataset?: unknown;
          column?: unknown;
          resolved?: unknown;
        };
        if (typeof dataset !== 'string' || typeof column !== 'string' || resolved === false) continue;
        const entry: LineageEntry = { output, dataset, column, ...transformation };
        parsed.entries.push(entry);
        let fields = parsed.byInput.get(dataset);
        if (!fields) parsed.byInput.set(dataset, (fields = new Map()));
        push(fields, keyOf(column, folded), entry);
        push(parsed.byOutput, keyOf(output, folded), entry);
      }
    }
  }
  parsedByEdge.set(edge, parsed);
  return parsed;
}

/**
 * The column lists of dataset `sink` for outputs named by position (`sinkColumnCandidates`): its
 * value schema's fields, or its key schema's then its value schema's.
 */
export function sinkColumnsOf(graph: ResidentGraph, sink: string): () => ReadonlyArray<readonly string[]> {
  return () => {
    const { value, key } = schemaFieldsByRole(graph, sink);
    return sinkColumnCandidates(value, key);
  };
}

/** `field` and its enclosing structs: `a.b.c` -> `a.b.c`, `a.b`, `a`. */
function selfAndParents(field: string): string[] {
  const names = [field];
  for (let dot = field.lastIndexOf('.'); dot > 0; dot = field.lastIndexOf('.', dot - 1))
    names.push(field.slice(0, dot));
  return names;
}

/** The entries of `index` whose key is `field`, one of its structs, one of its nested fields, or `*`. */
function matching(index: Map<string, LineageEntry[]> | undefined, field: string, folded: boolean): LineageEntry[] {
  if (!index) return [];
  if (field === ALL_FIELDS) return [...index.values()].flat();
  const key = keyOf(field, folded);
  const found: LineageEntry[] = [];
  const names = selfAndParents(key);
  for (const name of names) found.push(...(index.get(name) ?? []));
  for (const name of names.slice(1)) found.push(...(index.get(`${name}.${ALL_FIELDS}`) ?? []));
  found.push(...(index.get(ALL_FIELDS) ?? []));
  const prefix = `${key}.`;
  for (const [name, entries] of index) if (name.startsWith(prefix)) found.push(...entries);
  return found;
}

/**
 * The field names a dataset node is known to have, in first-seen order: `declared`, those of its
 * schemas (HAS_SCHEMA, value and key), of its `columns` attribute (catalog tables) and those its
 * upstream passes through unchanged (Tableflow, mirror topics); `named`, the others that column
 * lineage names on it (a ksqlDB query's upper-case spelling, a nested `after.order_id`).
 */
export function knownFields(graph: ResidentGraph, nodeId: string): { declared: string[]; named: string[] } {
  const declared = new Set<string>();
  const named = new Set<string>();
  collectKnownFields(graph, nodeId, { declared, named }, new Set());
  declared.delete(ALL_FIELDS);
  return { declared: [...declared], named: [...named].filter((name) => name !== ALL_FIELDS && !declared.has(name)) };
}

function collectKnownFields(
  graph: ResidentGraph,
  nodeId: string,
  fields: { declared: Set<string>; named: Set<string> },
  seen: Set<string>,
): void {
  if (seen.has(nodeId) || seen.size > 8) return;
  seen.add(nodeId);
  const node = graph.node(nodeId);
  if (!node) return;
  for (const name of namedFields(node.attributes?.columns)) fields.declared.add(name);
  for (const name of schemaFields(graph, nodeId)) fields.declared.add(name);
  graph.forEachIncoming(nodeId, (edge, source) => {
    const lineage = edgeLineage(edge, foldsCase(source), sinkColumnsOf(graph, nodeId));
    if (lineage)
      for (const entry of lineage.entries) if (!entry.output.includes(ALL_FIELDS)) fields.named.add(entry.output);
    if (edge.edge_type === 'MATERIALIZES' || isMirror(edge)) collectKnownFields(graph, source.id, fields, seen);
    const mapping = edge.edge_type === 'PRODUCES' ? connectorMapping(graph, source, edge) : undefined;
    if (!mapping) return;
    for (const entry of mapping.fields) fields.declared.add(entry.output);
    if (!mapping.all_fields || mapping.struct !== null) return;
    // Every field of the topics read, but those excluded or renamed to another name (`mappedColumnLineage`).
    const topics = jobInputs(graph, source.id)
      .filter((input) => mappingReads(mapping, graph.node(input)))
      .map((input) => ({ dataset: input, fields: schemaFields(graph, input) }));
    for (const entry of mappedColumnLineage(mapping, topics)) fields.declared.add(entry.output);
  });
  graph.forEachOutgoing(nodeId, (edge, _source, reader) => {
    if (edge.edge_type !== 'CONSUMES') return;
    for (const job of readingJobs(graph, reader))
      for (const produced of producesEdges(graph, job.id))
        for (const entries of edgeLineage(produced, foldsCase(job), sinkColumnsOf(graph, produced.dst_id))
          ?.byInput.get(nodeId)
          ?.values() ?? [])
          for (const entry of entries) if (entry.column !== ALL_FIELDS) fields.named.add(entry.column);
  });
}

/** Names of a `[{ name }]` list (schema fields, catalog columns); empty for anything else. */
function namedFields(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((item: unknown) => {
    const name = (item as { name?: unknown } | null)?.name;
    return typeof name === 'string' && name !== '' ? [name] : [];
  });
}

/** The fields of a topic's registered schemas (its HAS_SCHEMA targets), value schema first. */
export function schemaFields(graph: ResidentGraph, nodeId: string): string[] {
  const { value, key } = schemaFieldsByRole(graph, nodeId);
  return [...value, ...key];
}

/** The fields of a topic's key schema (HAS_SCHEMA with role `key`) and of its other schemas (value). */
function schemaFieldsByRole(graph: ResidentGraph, nodeId: string): { value: string[]; key: string[] } {
  const value: string[] = [];
  const key: string[] = [];
  if (graph.hasNode(nodeId))
    graph.forEachOutgoing(nodeId, (edge, _source, schema) => {
      if (edge.edge_type === 'HAS_SCHEMA')
        (edge.attributes?.role === 'key' ? key : value).push(...namedFields(schema.attributes?.fields));
    });
  return { value, key };
}

/** Whether a TRANSFORMS edge is a cluster link's mirror (the same records, field for field). */
function isMirror(edge: Edge): boolean {
  return edge.edge_type === 'TRANSFORMS' && typeof edge.attributes?.cluster_link === 'string';
}

/** The jobs a reader of a dataset reads for: a consumer group that is MEMBER_OF jobs reads for them. */
function readingJobs(graph: ResidentGraph, reader: Node): Node[] {
  if (reader.node_type !== 'CONSUMER_GROUP') return JOB_NODE_TYPES.has(reader.node_type) ? [reader] : [];
  const owners: Node[] = [];
  graph.forEachOutgoing(reader.id, (edge, _source, owner) => {
    if (edge.edge_type === 'MEMBER_OF') owners.push(owner);
  });
  return owners.length > 0 ? owners : [reader];
}

/** A job's PRODUCES edges. */
function producesEdges(graph: ResidentGraph, jobId: string): Edge[] {
  const edges: Edge[] = [];
  graph.forEachOutgoing(jobId, (edge) => {
    if (edge.edge_type === 'PRODUCES') edges.push(edge);
  });
  return edges;
}

/** The datasets a job reads: its CONSUMES sources and those of its consumer groups. */
function jobInputs(graph: ResidentGraph, jobId: string): string[] {
  const inputs = new Set<string>();
  graph.forEachIncoming(jobId, (edge, source) => {
    if (edge.edge_type === 'CONSUMES') inputs.add(source.id);
    if (edge.edge_type === 'MEMBER_OF')
      graph.forEachIncoming(source.id, (read, dataset) => {
        if (read.edge_type === 'CONSUMES') inputs.add(dataset.id);
      });
  });
  return [...inputs];
}

/**
 * The spelling of `field` on a sink: through a ksqlDB query, the registered schema's spelling of the
 * same name under another case (a query writes `USER_ID`, the sink's schema says `user_id`).
 */
function sinkSpelling(graph: ResidentGraph, sink: string, field: string, folded: boolean): string {
  if (!folded || field === ALL_FIELDS) return field;
  const fields = schemaFields(graph, sink);
  if (fields.includes(field)) return field;
  const lower = field.toLowerCase();
  return fields.find((name) => name.toLowerCase() === lower) ?? field;
}

/** The same field of dataset `node_id`, through an edge that copies its dataset (materialization, mirror). */
const identityHop = (node_id: string, field: string): ColumnStep => ({
  node_id,
  field,
  job: null,
  type: 'DIRECT',
  subtype: field === ALL_FIELDS ? 'UNKNOWN' : 'IDENTITY',
});

const unknownHop = (node_id: string, job: string | null): ColumnStep => ({
  node_id,
  field: ALL_FIELDS,
  job,
  type: 'DIRECT',
  subtype: 'UNKNOWN',
});

/**
 * The steps out of (or into) columns already asked for, for one revision of one graph: derived
 * state, dropped when the graph moves on (`stepMemo`). At most `MEMO_LIMIT` columns; emptied when full.
 */
export interface StepMemo {
  revision: number;
  steps: Map<string, { steps: ColumnStep[]; terminalJobs: string[] }>;
}

/** Columns a memo holds at most. */
const MEMO_LIMIT = 500_000;
const memos = new WeakMap<ResidentGraph, StepMemo>();

/** The memo of `graph` at `revision`: the one kept for it, or a new one when the graph changed since. */
export function stepMemo(graph: ResidentGraph, revision: number): StepMemo {
  let memo = memos.get(graph);
  if (!memo || memo.revision !== revision) memos.set(graph, (memo = { revision, steps: new Map() }));
  return memo;
}

/** A sink connector's `field_mapping` attribute (`SinkFieldMapping`, `src/extraction/connectorFields.ts`). */
interface FieldMapping {
  all_fields: boolean;
  struct: string | null;
  fields: Array<{ output: string; input: string; kind: string }>;
  /** Fields `all_fields` does not pass (ReplaceField `exclude`), top-level names under `struct`. */
  excluded?: string[];
  /** The one topic the output receives (a warehouse table's `source_topic`), when it names one. */
  sourceTopic: string | undefined;
}

/**
 * The field mapping a connector applies on its PRODUCES edge `edge` (not to its dead-letter topic),
 * or undefined when it states none.
 */
function connectorMapping(graph: ResidentGraph, job: Node, edge: Edge): FieldMapping | undefined {
  if (job.node_type !== 'CONNECTOR' || edge.attributes?.role === 'dlq') return undefined;
  const mapping = job.attributes?.field_mapping as Omit<FieldMapping, 'sourceTopic'> | undefined;
  if (typeof mapping !== 'object' || mapping === null || !Array.isArray(mapping.fields)) return undefined;
  const sourceTopic = graph.node(edge.dst_id)?.attributes?.source_topic;
  return { ...mapping, sourceTopic: typeof sourceTopic === 'string' ? sourceTopic : undefined };
}

/** Whether a mapping reads dataset `input` (every topic, or only the output's `source_topic`). */
function mappingReads(mapping: FieldMapping, input: Node | undefined): boolean {
  if (!input) return false;
  return mapping.sourceTopic === undefined || input.display_name === mapping.sourceTopic;
}

/** The steps a sink's field mapping gives from field `field` of its input `input` to `sink`. */
function mappedDownstream(
  mapping: FieldMapping,
  input: Node | undefined,
  field: string,
  sink: string,
  job: string,
): ColumnStep[] {
  if (!mappingReads(mapping, input)) return [];
  if (field === ALL_FIELDS) return [unknownHop(sink, job)];
  const related = (path: string) => path === field || path.startsWith(`${field}.`) || field.startsWith(`${path}.`);
  const steps: ColumnStep[] = mapping.fields
    .filter((entry) => related(entry.input))
    .map((entry) => ({ node_id: sink, field: entry.output, job, ...transformationOfKind(entry.kind) }));
  const renamed = mapping.fields.some((entry) => entry.input === field && entry.output !== field);
  if (!mapping.all_fields || renamed) return steps;
  if (mapping.struct === null) {
    if (passesAllFields(mapping, field)) steps.push({ node_id: sink, field, job, type: 'DIRECT', subtype: 'IDENTITY' });
  } else if (field === mapping.struct)
    steps.push({ node_id: sink, field: ALL_FIELDS, job, type: 'DIRECT', subtype: 'IDENTITY' });
  else if (field.startsWith(`${mapping.struct}.`) && passesAllFields(mapping, field.slice(mapping.struct.length + 1)))
    steps.push({
      node_id: sink,
      field: field.slice(mapping.struct.length + 1),
      job,
      type: 'DIRECT',
      subtype: 'IDENTITY',
    });
  return steps;
}

/** The steps a sink's field mapping gives from field `field` of its output back to its input `input`. */
function mappedUpstream(mapping: FieldMapping, input: Node | undefined, field: string, job: string): ColumnStep[] {
  if (!input || !mappingReads(mapping, input)) return [];
  if (field === ALL_FIELDS) return [unknownHop(input.id, job)];
  const named = mapping.fields.filter((entry) => entry.output === field);
  if (named.length > 0)
    return named.map((entry) => ({ node_id: input.id, field: entry.input, job, ...transformationOfKind(entry.kind) }));
  if (!mapping.all_fields || !passesAllFields(mapping, field)) return [];
  const path = mapping.struct === null ? field : `${mapping.struct}.${field}`;
  return [{ node_id: input.id, field: path, job, type: 'DIRECT', subtype: 'IDENTITY' }];
}

/** What a walk is told of the edges it may take. */
export interface StepOptions {
  /** Take INDIRECT edges (join keys, filters, group-by, window columns) too. */
  indirect: boolean;
}

/**
 * The column edges out of field `field` of dataset `nodeId` (downstream), and the jobs that read it
 * and write nothing (`terminalJobs`: a consumer group, a sink whose output is not in the graph).
 */
export function downstreamSteps(
  graph: ResidentGraph,
  nodeId: string,
  field: string,
  options: StepOptions,
): { steps: ColumnStep[]; terminalJobs: string[] } {
  const steps: ColumnStep[] = [];
  const terminalJobs: string[] = [];
  const seenJobs = new Set<string>();
  graph.forEachOutgoing(nodeId, (edge, _source, target) => {
    if (edge.edge_type === 'MATERIALIZES' || isMirror(edge)) {
      steps.push(identityHop(target.id, field));
    } else if (edge.edge_type === 'TRANSFORMS') {
      const lineage = edgeLineage(edge, false);
      if (lineage) steps.push(...lineageSteps(graph, lineage, nodeId, field, target.id, null, options));
      else steps.push(unknownHop(target.id, null));
    } else if (edge.edge_type === 'CONSUMES') {
      for (const job of readingJobs(graph, target)) {
        if (seenJobs.has(job.id)) continue;
        seenJobs.add(job.id);
        const produced = producesEdges(graph, job.id);
        if (produced.length === 0) terminalJobs.push(job.id);
        for (const output of produced) {
          const lineage = edgeLineage(output, foldsCase(job), sinkColumnsOf(graph, output.dst_id));
          const mapping = lineage ? undefined : connectorMapping(graph, job, output);
          if (lineage) steps.push(...lineageSteps(graph, lineage, nodeId, field, output.dst_id, job.id, options));
          else if (mapping) steps.push(...mappedDownstream(mapping, graph.node(nodeId), field, output.dst_id, job.id));
          else steps.push(unknownHop(output.dst_id, job.id));
        }
      }
    }
  });
  return { steps, terminalJobs };
}

/**
 * The output a star input (`column: '*'`) gives for `field`: the field under its own name for a
 * star output, nested in the struct of a `struct.*` output (a CDC table's column `c` -> `after.c`),
 * else the output as named.
 */
function starOutput(output: string, field: string): string {
  if (output === ALL_FIELDS || field === ALL_FIELDS) return output === ALL_FIELDS ? field : ALL_FIELDS;
  return output.endsWith(`.${ALL_FIELDS}`) ? `${output.slice(0, -1)}${field}` : output;
}

/** The input field a star input gives for output `field` (the reverse of `starOutput`). */
function starInput(output: string, field: string): string {
  if (output === ALL_FIELDS) return field;
  const struct = output.endsWith(`.${ALL_FIELDS}`) ? output.slice(0, -1) : undefined;
  return struct && field.startsWith(struct) && field.length > struct.length ? field.slice(struct.length) : ALL_FIELDS;
}

/** The steps an edge's lineage gives from `field` of `source` to `sink`. */
function lineageSteps(
  graph: ResidentGraph,
  lineage: ParsedLineage,
  source: string,
  field: string,
  sink: string,
  job: string | null,
  options: StepOptions,
): ColumnStep[] {
  const steps: ColumnStep[] = [];
  for (const entry of matching(lineage.byInput.get(source), field, lineage.folded)) {
    if (entry.type === 'INDIRECT' && !options.indirect) continue;
    const output = entry.column === ALL_FIELDS ? starOutput(entry.output, field) : entry.output;
    steps.push({
      node_id: sink,
      field: sinkSpelling(graph, sink, output, lineage.folded),
      job,
      type: entry.type,
      subtype: field === ALL_FIELDS ? 'UNKNOWN' : entry.subtype,
    });
  }
  return steps;
}

/**
 * The column edges into field `field` of dataset `nodeId` (upstream), and the jobs that write it and
 * read nothing in the graph (`terminalJobs`: a source connector, a generator).
 */
export function upstreamSteps(
  graph: ResidentGraph,
  nodeId: string,
  field: string,
  options: StepOptions,
): { steps: ColumnStep[]; terminalJobs: string[] } {
  const steps: ColumnStep[] = [];
  const terminalJobs: string[] = [];
  graph.forEachIncoming(nodeId, (edge, source) => {
    if (edge.edge_type === 'MATERIALIZES' || isMirror(edge)) {
      steps.push(identityHop(source.id, field));
      return;
    }
    if (edge.edge_type !== 'TRANSFORMS' && edge.edge_type !== 'PRODUCES') return;
    const job = edge.edge_type === 'PRODUCES' ? source : undefined;
    const lineage = edgeLineage(edge, foldsCase(job), sinkColumnsOf(graph, nodeId));
    if (lineage) {
      const index = lineage.byOutput;
      for (const entry of matching(index, field, lineage.folded)) {
        if (entry.type === 'INDIRECT' && !options.indirect) continue;
        const column = entry.column === ALL_FIELDS ? starInput(entry.output, field) : entry.column;
        const subtype = field === ALL_FIELDS ? 'UNKNOWN' : entry.subtype;
        steps.push({ node_id: entry.dataset, field: column, job: job?.id ?? null, type: entry.type, subtype });
      }
      return;
    }
    if (!job) {
      steps.push(unknownHop(source.id, null));
      return;
    }
    const mapping = connectorMapping(graph, job, edge);
    if (mapping) {
      for (const input of jobInputs(graph, job.id))
        steps.push(...mappedUpstream(mapping, graph.node(input), field, job.id));
      return;
    }
    const inputs = jobInputs(graph, job.id);
    if (inputs.length === 0) terminalJobs.push(job.id);
    for (const input of inputs) steps.push(unknownHop(input, job.id));
  });
  return { steps, terminalJobs };
}

/** A column the walk reached (a column of the field-level impact answer, `ImpactColumn`). */
export interface ReachedColumn {
  node_id: string;
  /** The field, as its dataset spells it; `*` for a dataset reached through a hop of unknown transformation. */
  field: string;
  /** Jobs between the origin and the column. */
  hops: number;
  /** Those jobs' node ids, in order from the origin. */
  via: string[];
  /**
   * DIRECT when a path of DIRECT edges reaches it; INDIRECT when only paths through an INDIRECT edge
   * do (only when the walk takes INDIRECT edges: `include=indirect`).
   */
  type: ColumnLineageType;
  /**
   * The last edge's OpenLineage subtype (IDENTITY, TRANSFORMATION, AGGREGATION; JOIN, FILTER,
   * GROUP_BY, WINDOW), or UNKNOWN on and after a hop whose column mapping is not known.
   */
  subtype: ColumnLineageSubtype;
}

/** What `walkColumns` answers. */
export interface ColumnWalk {
  /** Every column reached (not the origin), by hops, then node id, then field. */
  columns: ReachedColumn[];
  /** Every job a reached column's path goes through or that reads a reached column and writes nothing, by first hop, then id. */
  jobs: string[];
}

/** The direction of a walk: along the data (`downstream`) or against it (`upstream`). */
export type ColumnDirection = 'downstream' | 'upstream';

/**
 * Walks the column graph from `origin` in `direction`, at most `depth` jobs away: a breadth-first
 * walk in which a hop through a job costs one and a hop without one (Tableflow, a mirror) none, so
 * each column is listed once with the fewest jobs between it and the origin (and the first such
 * path found). With `indirect`, a second walk takes INDIRECT edges too and adds the columns only
 * it reaches, marked INDIRECT.
 */
export function walkColumns(
  graph: ResidentGraph,
  origin: { node_id: string; field: string },
  direction: ColumnDirection,
  depth: number,
  indirect: boolean,
  memo?: StepMemo,
): ColumnWalk {
  const direct = walkOnce(graph, origin, direction, depth, { indirect: false }, memo);
  const jobs = direct.jobs;
  const columns = [...direct.columns.values()];
  if (indirect) {
    const wide = walkOnce(graph, origin, direction, depth, { indirect: true }, memo);
    for (const [key, column] of wide.columns)
      if (!direct.columns.has(key)) columns.push({ ...column, type: 'INDIRECT' });
    for (const [job, hop] of wide.jobs) if (!jobs.has(job)) jobs.set(job, hop);
  }
  columns.sort((a, b) => a.hops - b.hops || compare(a.node_id, b.node_id) || compare(a.field, b.field));
  const jobList = [...jobs].sort((a, b) => a[1] - b[1] || compare(a[0], b[0])).map(([job]) => job);
  return { columns, jobs: jobList };
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const columnKey = (node: string, field: string) => `${node}\u0000${field}`;

/** One breadth-first walk (see `walkColumns`): the columns by key, and each job with its first hop. */
function walkOnce(
  graph: ResidentGraph,
  origin: { node_id: string; field: string },
  direction: ColumnDirection,
  depth: number,
  options: StepOptions,
  memo?: StepMemo,
): { columns: Map<string, ReachedColumn>; jobs: Map<string, number> } {
  const walk = direction === 'downstream' ? downstreamSteps : upstreamSteps;
  const memoKey = `${direction}\u0000${options.indirect ? 1 : 0}\u0000`;
  const stepsOf = (node: string, field: string, stepOptions: StepOptions) => {
    if (!memo) return walk(graph, node, field, stepOptions);
    const key = memoKey + columnKey(node, field);
    let found = memo.steps.get(key);
    if (!found) {
      if (memo.steps.size >= MEMO_LIMIT) memo.steps.clear();
      memo.steps.set(key, (found = walk(graph, node, field, stepOptions)));
    }
    return found;
  };
  const originKey = columnKey(origin.node_id, origin.field);
  const columns = new Map<string, ReachedColumn>();
  const jobs = new Map<string, number>();
  const done = new Set<string>();
  const start: ReachedColumn = { ...origin, hops: 0, via: [], type: 'DIRECT', subtype: 'IDENTITY' };
  let level: ReachedColumn[] = [start];
  for (let hops = 0; level.length > 0 && hops <= depth; hops++) {
    const next: ReachedColumn[] = [];
    for (let index = 0; index < level.length; index++) {
      const column = level[index]!;
      const key = columnKey(column.node_id, column.field);
      if (done.has(key)) continue;
      done.add(key);
      if (key !== originKey) columns.set(key, column);
      const { steps, terminalJobs } = stepsOf(column.node_id, column.field, options);
      if (hops + 1 <= depth) for (const job of terminalJobs) if (!jobs.has(job)) jobs.set(job, hops + 1);
      for (const step of steps) {
        if (step.job !== null && hops + 1 > depth) continue;
        if (step.job !== null && !jobs.has(step.job)) jobs.set(step.job, hops + 1);
        if (done.has(columnKey(step.node_id, step.field))) continue;
        const reached: ReachedColumn = {
          node_id: step.node_id,
          field: step.field,
          hops: step.job === null ? hops : hops + 1,
          via: step.job === null ? column.via : [...column.via, step.job],
          type: 'DIRECT',
          subtype: column.subtype === 'UNKNOWN' && column !== start ? 'UNKNOWN' : step.subtype,
        };
        (step.job === null ? level : next).push(reached);
      }
    }
    level = next;
  }
  return { columns, jobs };
}

/** A field a schema (or a catalog table's columns) gained or lost. */
export interface FieldChange {
  /** The SCHEMA node (or the table) whose fields changed. */
  node_id: string;
  field: string;
}

/** A column edge that appeared or went: `input` feeds `output` through `job`. */
export interface ColumnEdgeChange {
  input: { node_id: string; field: string };
  output: { node_id: string; field: string };
  /** The job of a PRODUCES edge; null for a TRANSFORMS edge. */
  job: string | null;
  type: ColumnLineageType;
  subtype: ColumnLineageSubtype;
}

/** Column-level changes between two points of a graph (issue 26, item 4). Lists sorted. */
export interface ColumnChanges {
  fields: { added: FieldChange[]; removed: FieldChange[] };
  column_edges: { added: ColumnEdgeChange[]; removed: ColumnEdgeChange[] };
}

/** Each element of a diff as [before, after]: undefined before an added one, after a removed one. */
function beforeAndAfter<T>(changes: {
  added: T[];
  removed: T[];
  changed: Array<{ before: T; after: T }>;
}): Array<[T | undefined, T | undefined]> {
  return [
    ...changes.added.map((element): [undefined, T] => [undefined, element]),
    ...changes.removed.map((element): [T, undefined] => [element, undefined]),
    ...changes.changed.map(({ before, after }): [T, T] => [before, after]),
  ];
}

/**
 * The column-level changes a graph diff holds: the fields of SCHEMA nodes (and `columns` of catalog
 * tables) added, removed or changed, and the `column_lineage` entries of PRODUCES and TRANSFORMS
 * edges added, removed or changed (a statement that stopped reading a column is a removed column
 * edge). Reads only the diff's elements, so it costs what changed.
 */
export function columnChanges(diff: {
  nodes: { added: Node[]; removed: Node[]; changed: Array<{ before: Node; after: Node }> };
  edges: { added: Edge[]; removed: Edge[]; changed: Array<{ before: Edge; after: Edge }> };
}): ColumnChanges {
  const fieldsOf = (node: Node | undefined) =>
    new Set(node ? [...namedFields(node.attributes?.fields), ...namedFields(node.attributes?.columns)] : []);
  const fields: ColumnChanges['fields'] = { added: [], removed: [] };
  for (const [before, after] of beforeAndAfter(diff.nodes)) {
    const [was, is] = [fieldsOf(before), fieldsOf(after)];
    const id = (after ?? before)!.id;
    for (const field of is) if (!was.has(field)) fields.added.push({ node_id: id, field });
    for (const field of was) if (!is.has(field)) fields.removed.push({ node_id: id, field });
  }
  const edges: ColumnChanges['column_edges'] = { added: [], removed: [] };
  for (const [before, after] of beforeAndAfter(diff.edges)) {
    const [was, is] = [columnEdgesOf(before), columnEdgesOf(after)];
    for (const [key, change] of is) if (!was.has(key)) edges.added.push(change);
    for (const [key, change] of was) if (!is.has(key)) edges.removed.push(change);
  }
  const byField = (a: FieldChange, b: FieldChange) => compare(a.node_id, b.node_id) || compare(a.field, b.field);
  const byEdge = (a: ColumnEdgeChange, b: ColumnEdgeChange) =>
    compare(a.output.node_id, b.output.node_id) ||
    compare(a.output.field, b.output.field) ||
    compare(a.input.node_id, b.input.node_id) ||
    compare(a.input.field, b.input.field);
  fields.added.sort(byField);
  fields.removed.sort(byField);
  edges.added.sort(byEdge);
  edges.removed.sort(byEdge);
  return { fields, column_edges: edges };
}

/** The column edges of one graph edge's `column_lineage`, by a key of all their parts. */
function columnEdgesOf(edge: Edge | undefined): Map<string, ColumnEdgeChange> {
  const found = new Map<string, ColumnEdgeChange>();
  if (!edge || (edge.edge_type !== 'PRODUCES' && edge.edge_type !== 'TRANSFORMS')) return found;
  const lineage = edgeLineage(edge, false);
  const job = edge.edge_type === 'PRODUCES' ? edge.src_id : null;
  for (const entry of lineage?.entries ?? []) {
    const change: ColumnEdgeChange = {
      input: { node_id: entry.dataset, field: entry.column },
      output: { node_id: edge.dst_id, field: entry.output },
      job,
      type: entry.type,
      subtype: entry.subtype,
    };
    found.set([entry.dataset, entry.column, edge.dst_id, entry.output, job, entry.subtype].join('\u0000'), change);
  }
  return found;
}
