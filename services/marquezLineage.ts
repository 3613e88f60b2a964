/**
 * Marquez's lineage and column lineage (`GET /lineage`, `GET /column-lineage`; issue 25;
 * docs/marquez.md, "Lineage"), walked over the OpenLineage projection: the ingested events'
 * dataset -> job -> dataset edges (accumulated over every run) and the extracted graphs' jobs
 * (`projections/openLineage/extracted.ts`), with datasets joined by identity (symlinks,
 * `kafka://` <-> `stream://`), so one walk crosses from a producer's events into our topics.
 *
 * `depth` counts job hops, as Marquez's does. From the origin, the walk goes upstream (the jobs that
 * write a dataset, then their inputs) and downstream (the jobs that read it, then their outputs), as
 * our traversals do; edges join the nodes reached. Unlike Marquez, which answers the undirected
 * component around the node with every input and output of each job, siblings (jobs that only share an
 * input with the origin's path, a job's other outputs) are not followed: the answer is the origin's
 * upstream and downstream, and it stays bounded on large estates.
 *
 * Node ids are Marquez's: `dataset:{namespace}:{name}`, `job:{namespace}:{name}`,
 * `datasetField:{namespace}:{name}:{field}`, raw (not percent-encoded). Only reads.
 */
import { NotFoundError, ValidationError } from '../src/errors.js';
import { datasetKey, splitDatasetKey } from '../src/openlineage/identity.js';
import type { IngestedEvent } from '../src/openlineage/model.js';
import { openLineageIdentity } from '../src/openlineage/fromGraph.js';
import { ALL_FIELDS, downstreamSteps, upstreamSteps } from '../projections/columnGraph.js';
import type { GraphProjection } from '../projections/graphProjection.js';
import type { PooledBytes } from '../projections/traversal/index.js';
import { isDeleted, type MarquezRuntime } from './marquez.js';
import { marquezLineageIndex } from './marquezLineageIndex.js';
import { findDatasetKey, LineageReader } from './marquezLineageReader.js';
import { fieldsOf } from './marquezShapes.js';

/** Marquez lineage depth when the query names none. */
export const DEFAULT_MARQUEZ_DEPTH = 20;
/** Most job hops a Marquez lineage query may ask for. */
export const MAX_MARQUEZ_DEPTH = 100;
/**
 * Most datasets and jobs one lineage answer holds unless the setting says otherwise
 * (`LINEAGE_SVC_MARQUEZ_MAX_LINEAGE_NODES`): a walk that reaches more stops and the query is refused
 * (400) rather than holding the process for seconds and answering megabytes (docs/marquez.md, "Lineage").
 */
export const DEFAULT_MARQUEZ_MAX_LINEAGE_NODES = 5_000;

/** A parsed Marquez node id. */
export type MarquezNode =
  | { type: 'dataset' | 'job'; namespace: string; name: string }
  | { type: 'datasetField'; namespace: string; name: string; field: string };

/** An edge of a Marquez graph. */
export type MarquezEdge = {
  origin: string;
  destination: string;
};

/** A node of Marquez's `LineageGraph`. */
export type MarquezGraphNode = {
  id: string;
  type: 'DATASET' | 'JOB' | 'DATASET_FIELD';
  data: unknown;
  inEdges: MarquezEdge[];
  outEdges: MarquezEdge[];
};

const decode = (part: string): string => {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new ValidationError(`nodeId part "${part.slice(0, 80)}" is not percent-encoded correctly`, [
      { path: 'querystring.nodeId', message: 'bad percent-encoding' },
    ]);
  }
};

/**
 * Parses a Marquez `nodeId`. Marquez Web builds it as `{type}:{encodeURIComponent(namespace)}:
 * {encodeURIComponent(name)}` and sends it unescaped in the query, so `raw` (the value as it was in
 * the query string, before percent-decoding) split on `:` gives the parts. When it does not (a client
 * that encoded the whole id, or raw namespaces such as `stream://env/cluster`), the decoded value is
 * split at each `:` in turn and the first split whose dataset or job `exists` is taken.
 * @throws ValidationError for another type or a malformed id; NotFoundError when no split names a known node.
 */
export function parseNodeId(
  decoded: string,
  raw: string | undefined,
  exists: (type: 'dataset' | 'job', namespace: string, name: string) => boolean,
): MarquezNode {
  const type = decoded.slice(0, decoded.indexOf(':'));
  if (type !== 'dataset' && type !== 'job' && type !== 'datasetField') {
    throw new ValidationError(`nodeId "${decoded.slice(0, 120)}" must start with dataset:, job: or datasetField:`, [
      {
        path: 'querystring.nodeId',
        message:
          'expected dataset:{namespace}:{name}, job:{namespace}:{name} or datasetField:{namespace}:{name}:{field}',
      },
    ]);
  }
  const parts = raw?.split(':');
  if (parts && parts[0] === type) {
    if (type !== 'datasetField' && parts.length === 3)
      return { type, namespace: decode(parts[1]!), name: decode(parts[2]!) };
    if (type === 'datasetField' && parts.length === 4)
      return { type, namespace: decode(parts[1]!), name: decode(parts[2]!), field: decode(parts[3]!) };
  }
  let rest = decoded.slice(type.length + 1);
  let field: string | undefined;
  if (type === 'datasetField') {
    field = rest.slice(rest.lastIndexOf(':') + 1);
    rest = rest.slice(0, Math.max(0, rest.lastIndexOf(':')));
  }
  for (let at = rest.indexOf(':'); at >= 0; at = rest.indexOf(':', at + 1)) {
    const namespace = rest.slice(0, at);
    const name = rest.slice(at + 1);
    if (exists(type === 'job' ? 'job' : 'dataset', namespace, name))
      return field === undefined
        ? { type: type as 'dataset' | 'job', namespace, name }
        : { type: 'datasetField', namespace, name, field };
  }
  throw new NotFoundError(`nodeId "${decoded.slice(0, 200)}" names no known ${type === 'job' ? 'job' : 'dataset'}`);
}

/** Whether a dataset or job of that identity is known (ingested, or held by an extracted graph). */
export function nodeExists(runtime: MarquezRuntime, type: 'dataset' | 'job', namespace: string, name: string): boolean {
  const { state } = runtime.openLineage;
  const join = runtime.openLineage.graphJoin();
  const key = datasetKey(namespace, name);
  if (isDeleted(runtime, type, namespace, name)) return false;
  if (type === 'job') return state.jobs.has(key) || join.jobsNamed(namespace, name).length > 0;
  return findDatasetKey(state, join, key) !== null;
}

/** A Marquez lineage answer, written already (`MarquezLineageIndex.answer`). */
export interface MarquezLineageAnswer {
  /** Nodes in `graph`. */
  nodeCount: number;
  /**
   * The `LineageGraph` (`{"graph": [...]}`) as UTF-8 JSON bytes in a pooled buffer, the same bytes
   * on each call; call `release` once they have been sent.
   */
  serialize(): PooledBytes;
}

/**
 * `GET /lineage?nodeId&depth`: the Marquez lineage graph around a dataset or a job (see the module
 * comment), datasets then jobs, each in the order reached (upstream and downstream a hop at a time
 * in turn), walked over the Marquez lineage index of
 * the store's current position (`marquezLineageIndex.ts`).
 * @param maxNodes the most datasets and jobs the answer may hold (`DEFAULT_MARQUEZ_MAX_LINEAGE_NODES`
 * unless told; 0: no limit).
 * @throws NotFoundError for an unknown dataset or job.
 * @throws LineageTooLargeError (a ValidationError) when the walk reaches more than `maxNodes` datasets
 * and jobs; its message names the deepest depth that fits.
 */
export function marquezLineage(
  runtime: MarquezRuntime,
  origin: { type: 'dataset' | 'job'; namespace: string; name: string },
  depth: number,
  maxNodes = DEFAULT_MARQUEZ_MAX_LINEAGE_NODES,
): MarquezLineageAnswer {
  if (!nodeExists(runtime, origin.type, origin.namespace, origin.name))
    throw new NotFoundError(`${origin.type} "${origin.name}" in namespace "${origin.namespace}" is not known`);
  const index = marquezLineageIndex(runtime);
  const key = datasetKey(origin.namespace, origin.name);
  const start = origin.type === 'dataset' ? { dataset: index.datasetNumber(key), key } : { job: index.jobNumber(key) };
  const { bytes, nodeCount } = index.answer(
    index.walk(start, depth, maxNodes === 0 ? Number.POSITIVE_INFINITY : maxNodes),
  );
  return { nodeCount, serialize: () => bytes };
}

/** One input field of a column-lineage entry. */
export type ColumnInput = {
  namespace: string;
  dataset: string;
  field: string;
  transformationDescription: string | null;
  transformationType: string | null;
};

/** The column lineage of one output field: the input fields it is written from. */
export type ColumnEntry = {
  namespace: string;
  dataset: string;
  field: string;
  inputs: ColumnInput[];
};

/**
 * The column lineage the ingested events give around one dataset: the `columnLineage` facets of the
 * outputs of the jobs that write the dataset (`upstream`) or read it (the entries of their outputs
 * that name one of its fields), from the latest run of each job. The extracted graphs' column lineage
 * comes from the column graph instead (`extractedColumnEntries`).
 */
export function columnLineageAround(reader: LineageReader, key: string, upstream: boolean): ColumnEntry[] {
  const entries: ColumnEntry[] = [];
  const members = new Set(reader.state.identities.members(key));
  for (const jobKey of reader.jobsOf(key, upstream)) {
    for (const event of jobEvents(reader, jobKey)) {
      for (const output of Array.isArray(event.outputs) ? event.outputs : []) {
        const out = output as { namespace?: unknown; name?: unknown; facets?: Record<string, unknown> };
        if (typeof out.namespace !== 'string' || typeof out.name !== 'string') continue;
        const outKey = datasetKey(out.namespace, out.name);
        if (upstream && reader.classOf(outKey) !== reader.classOf(key)) continue;
        for (const entry of columnEntries(out.namespace, out.name, out.facets?.columnLineage)) {
          if (upstream || entry.inputs.some((input) => members.has(datasetKey(input.namespace, input.dataset))))
            entries.push(entry);
        }
      }
    }
  }
  return entries;
}

/**
 * The column lineage the extracted graphs give around field `field` of dataset `key` (any key of its
 * identity class), one hop: the column edges of issue 26's column graph (`projections/columnGraph.ts`,
 * the one the impact API walks), with INDIRECT edges, read on each graph that holds the dataset.
 * Upstream, one entry for the field with the input fields written into it; downstream, one entry per
 * output field written from it. Hops of unknown transformation (the column graph's field `*`) are
 * not column lineage in Marquez's sense and are left out; field names are the column graph's.
 */
export function extractedColumnEntries(
  reader: LineageReader,
  graphs: Pick<GraphProjection, 'get'>,
  key: string,
  field: string,
  upstream: boolean,
): ColumnEntry[] {
  const entries: ColumnEntry[] = [];
  for (const member of reader.state.identities.members(key)) {
    for (const [graphId, nodeId] of reader.state.graphDatasets.nodesUnder(member)) {
      const graph = graphs.get(graphId);
      if (!graph) continue;
      const origin = splitDatasetKey(member);
      const { steps } = (upstream ? upstreamSteps : downstreamSteps)(graph.graph, nodeId, field, { indirect: true });
      const inputs: ColumnInput[] = [];
      for (const step of steps) {
        const node = graph.graph.node(step.node_id);
        if (!node || step.field === ALL_FIELDS || step.subtype === 'UNKNOWN') continue;
        const identity = openLineageIdentity(node);
        if (upstream)
          inputs.push({
            namespace: identity.namespace,
            dataset: identity.name,
            field: step.field,
            transformationDescription: null,
            transformationType: step.subtype,
          });
        else
          entries.push({
            namespace: identity.namespace,
            dataset: identity.name,
            field: step.field,
            inputs: [
              {
                namespace: origin.namespace,
                dataset: origin.name,
                field,
                transformationDescription: null,
                transformationType: step.subtype,
              },
            ],
          });
      }
      if (upstream && inputs.length > 0)
        entries.push({ namespace: origin.namespace, dataset: origin.name, field, inputs });
    }
  }
  return entries;
}

/** The events of a job's latest run, as ingested (an extracted job's column lineage is the column graph's). */
function jobEvents(reader: LineageReader, jobKey: string): IngestedEvent[] {
  const { state } = reader;
  const job = state.jobs.get(jobKey);
  return job && job.latestRunId !== null
    ? (state.byRun.get(job.latestRunId) ?? [])
        .filter((record) => record.jobKey === jobKey)
        .map((record) => record.event)
    : [];
}

/** The entries of a `columnLineage` facet (ColumnLineageDatasetFacet 1-x) of output `(namespace, name)`. */
function columnEntries(namespace: string, name: string, facet: unknown): ColumnEntry[] {
  if (typeof facet !== 'object' || facet === null) return [];
  const fields = (facet as { fields?: unknown }).fields;
  if (typeof fields !== 'object' || fields === null) return [];
  const entries: ColumnEntry[] = [];
  for (const [field, value] of Object.entries(fields as Record<string, unknown>)) {
    const spec = value as { inputFields?: unknown; transformationDescription?: unknown; transformationType?: unknown };
    const inputs: ColumnInput[] = [];
    for (const input of Array.isArray(spec.inputFields) ? spec.inputFields : []) {
      const {
        namespace: inNamespace,
        name: inName,
        field: inField,
        transformations,
      } = input as Record<string, unknown>;
      if (typeof inNamespace !== 'string' || typeof inName !== 'string' || typeof inField !== 'string') continue;
      const first = Array.isArray(transformations)
        ? (transformations[0] as Record<string, unknown> | undefined)
        : undefined;
      const type =
        typeof first?.subtype === 'string'
          ? first.subtype
          : typeof spec.transformationType === 'string'
            ? spec.transformationType
            : null;
      const description =
        typeof first?.description === 'string'
          ? first.description
          : typeof spec.transformationDescription === 'string'
            ? spec.transformationDescription
            : null;
      inputs.push({
        namespace: inNamespace,
        dataset: inName,
        field: inField,
        transformationDescription: description,
        transformationType: type,
      });
    }
    if (inputs.length > 0) entries.push({ namespace, dataset: name, field, inputs });
  }
  return entries;
}

/**
 * `GET /column-lineage?nodeId&depth&withDownstream`: the fields upstream of a field (or of every
 * field of a dataset), `depth` field hops, and downstream too with `withDownstream`; nodes
 * `datasetField:{namespace}:{name}:{field}` with Marquez's data (`inputFields`, transformation).
 * @throws NotFoundError for an unknown dataset.
 */
export function marquezColumnLineage(
  runtime: MarquezRuntime,
  origin: MarquezNode,
  depth: number,
  withDownstream: boolean,
): { graph: MarquezGraphNode[] } {
  if (origin.type === 'job')
    throw new ValidationError('column lineage starts at a dataset or a dataset field, not a job', [
      { path: 'querystring.nodeId', message: 'expected dataset:... or datasetField:...' },
    ]);
  const { state } = runtime.openLineage;
  const join = runtime.openLineage.graphJoin();
  const reader = new LineageReader(state, join);
  const originKey = findDatasetKey(state, join, datasetKey(origin.namespace, origin.name));
  if (originKey === null)
    throw new NotFoundError(`dataset "${origin.name}" in namespace "${origin.namespace}" is not known`);
  const graph = new ColumnGraph(reader, runtime.graphs);
  const facets = {
    ...(join.dataset(originKey)?.dataset.facets ?? {}),
    ...(state.datasets.get(originKey)?.facets ?? {}),
  } as Record<string, unknown>;
  const fields = fieldsOf(facets).map((field) => field.name);
  const start =
    origin.type === 'datasetField'
      ? [{ key: originKey, field: origin.field }]
      : (fields.length > 0 ? fields : graph.writtenFields(originKey)).map((field) => ({ key: originKey, field }));
  graph.walk(start, true, depth);
  if (withDownstream) graph.walk(start, false, depth);
  return { graph: graph.nodes() };
}

/** The field graph a column-lineage walk builds. */
class ColumnGraph {
  private readonly fieldNodes = new Map<string, MarquezGraphNode & { data: Record<string, unknown> }>();
  private readonly written = new Map<string, ColumnEntry[]>();
  private readonly read = new Map<string, ColumnEntry[]>();
  private readonly extracted = new Map<string, ColumnEntry[]>();
  constructor(
    private readonly reader: LineageReader,
    private readonly graphs: Pick<GraphProjection, 'get'>,
  ) {}

  /** The ingested entries around `key`, then the extracted graphs' around its field `field`. */
  private entriesOf(key: string, field: string, upstream: boolean): ColumnEntry[] {
    const memo = `${upstream ? 'u' : 'd'}${this.reader.classOf(key)}\u0000${field}`;
    let extracted = this.extracted.get(memo);
    if (!extracted)
      this.extracted.set(memo, (extracted = extractedColumnEntries(this.reader, this.graphs, key, field, upstream)));
    return [...this.entries(key, upstream), ...extracted];
  }

  private entries(key: string, upstream: boolean): ColumnEntry[] {
    const cache = upstream ? this.written : this.read;
    const cls = this.reader.classOf(key);
    let found = cache.get(cls);
    if (!found) cache.set(cls, (found = columnLineageAround(this.reader, key, upstream)));
    return found;
  }

  /** The fields of a dataset some column lineage writes. */
  writtenFields(key: string): string[] {
    return [...new Set(this.entries(key, true).map((entry) => entry.field))];
  }

  private node(namespace: string, dataset: string, field: string) {
    const id = `datasetField:${namespace}:${dataset}:${field}`;
    let node = this.fieldNodes.get(id);
    if (!node) {
      node = {
        id,
        type: 'DATASET_FIELD',
        data: {
          namespace,
          dataset,
          field,
          fieldType: null,
          transformationDescription: null,
          transformationType: null,
          inputFields: [],
        },
        inEdges: [],
        outEdges: [],
      };
      this.fieldNodes.set(id, node);
    }
    return node;
  }

  private link(entry: ColumnEntry, input: ColumnInput): { from: string; to: string } {
    const to = this.node(entry.namespace, entry.dataset, entry.field);
    const from = this.node(input.namespace, input.dataset, input.field);
    const inputs = to.data.inputFields as ColumnInput[];
    if (!to.inEdges.some((edge) => edge.origin === from.id)) {
      const edge = { origin: from.id, destination: to.id };
      to.inEdges.push(edge);
      from.outEdges.push(edge);
      inputs.push(input);
      to.data.transformationType ??= input.transformationType;
      to.data.transformationDescription ??= input.transformationDescription;
    }
    return { from: from.id, to: to.id };
  }

  /** Walks `depth` field hops upstream or downstream from `start`. */
  walk(start: Array<{ key: string; field: string }>, upstream: boolean, depth: number): void {
    let frontier = start;
    const seen = new Set(start.map(({ key, field }) => `${this.reader.classOf(key)}\u0000${field}`));
    for (const { key, field } of start) {
      const { namespace, name } = splitDatasetKey(key);
      this.node(namespace, name, field);
    }
    for (let hop = 0; hop < depth && frontier.length > 0; hop += 1) {
      const next: Array<{ key: string; field: string }> = [];
      for (const { key, field } of frontier) {
        const members = new Set(this.reader.state.identities.members(key));
        for (const entry of this.entriesOf(key, field, upstream)) {
          for (const input of entry.inputs) {
            const inputKey = datasetKey(input.namespace, input.dataset);
            if (upstream ? entry.field !== field : !(members.has(inputKey) && input.field === field)) continue;
            this.link(entry, input);
            const step = upstream
              ? { key: inputKey, field: input.field }
              : { key: datasetKey(entry.namespace, entry.dataset), field: entry.field };
            const mark = `${this.reader.classOf(step.key)}\u0000${step.field}`;
            if (seen.has(mark)) continue;
            seen.add(mark);
            next.push(step);
          }
        }
      }
      frontier = next;
    }
  }

  nodes(): MarquezGraphNode[] {
    return [...this.fieldNodes.values()];
  }
}
