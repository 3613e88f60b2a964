/**
 * The OpenLineage projection's fold (docs/openlineage.md, "Ingestion", "Identity" and "Queries"):
 * `evolveOpenLineage(state, event)` applies one stored event to an `OpenLineageState`.
 *
 * - `OpenLineageEventIngested` events are folded once per `dedupe_key`, so a duplicate that reached
 *   the store (two processes storing the same event in different batches) never shows twice.
 * - `OpenLineageEventIngested` events that a graph view stored (metadata `cause: view`, written
 *   before views stopped storing) are skipped: the extracted graphs are joined as they are now
 *   (`extracted.ts`), and those copies would keep deleted or changed jobs alive.
 * - Graph events (graph streams) keep `graphDatasets` and `graphJobs`: `NodesAdded` and `NodesChanged` index each dataset
 *   node under its OpenLineage identity (and register that identity) and each job node under its
 *   OpenLineage name, `NodesRemoved` unindexes, `GraphCreated` and `GraphDeleted` forget the graph.
 *   `NodesAdded` and `NodesChanged` also make `kafka://{bootstrap}` an alias of
 *   `stream://{env}/{cluster}` for stream nodes that carry a bootstrap endpoint. Edges are not kept:
 *   the queries read them from the graph projection.
 * - The Marquez API's writes (`MarquezTagAdded`, `MarquezTagRemoved`, `MarquezTagDefined`,
 *   `MarquezElementDeleted`) keep `state.marquez`; a deleted dataset or job shows again when a later
 *   OpenLineage event names it or a later graph change records its node (Marquez's soft delete).
 * - Every event advances `state.position`; other types change nothing else. The graph, OpenLineage
 *   and Marquez events (`LINEAGE_EVENT_TYPES`) also advance `state.lineagePosition`.
 */
import { v5 as uuidv5 } from 'uuid';
import { GRAPH_EVENT_TYPES, type StoredLineageEvent } from '../../src/events.js';
import { DATASET_NODE_TYPES, JOB_NODE_TYPES, type Node } from '../../src/graph/model.js';
import { openLineageIdentity } from '../../src/openlineage/fromGraph.js';
import {
  datasetKey,
  kafkaNamespace,
  nodeBootstrap,
  splitDatasetKey,
  streamNamespace,
  symlinkIdentifiers,
} from '../../src/openlineage/identity.js';
import { NON_UUID_RUN_NAMESPACE, parseEventTime } from '../../src/openlineage/ingest.js';
import { isUuid, type IngestedEvent, type OpenLineageEventKind } from '../../src/openlineage/model.js';
import { isGraphEvent } from '../graphProjection.js';
import {
  byTime,
  datasetNode,
  isObject,
  jobNode,
  marquezKey,
  type DatasetName,
  type EventRecord,
  type JobState,
  type OpenLineageState,
} from './state.js';

/**
 * The event types that can change what a lineage read sees: the graphs' (the extracted graphs are
 * joined), the ingested OpenLineage events and the Marquez API's writes. Process, task, watcher,
 * extraction, metrics and publisher events are not among them.
 */
export const LINEAGE_EVENT_TYPES: ReadonlySet<StoredLineageEvent['type']> = new Set<StoredLineageEvent['type']>([
  ...GRAPH_EVENT_TYPES,
  'OpenLineageEventIngested',
  'MarquezTagAdded',
  'MarquezTagRemoved',
  'MarquezTagDefined',
  'MarquezElementDeleted',
]);

/**
 * Applies one stored event to the state and returns it. Like `evolveGraph`
 * (`projections/graphProjection.ts`), it changes the state it is given, in place; it reads nothing
 * but its arguments (no clock, no I/O), so folding the same events from `initialOpenLineageState()`
 * always gives the same state. Applying an `OpenLineageEventIngested` whose `dedupe_key` was folded
 * already changes nothing but the position.
 */
export function evolveOpenLineage(state: OpenLineageState, event: StoredLineageEvent): OpenLineageState {
  state.position = event.position;
  if (LINEAGE_EVENT_TYPES.has(event.type)) state.lineagePosition = event.position;
  switch (event.type) {
    case 'GraphCreated':
    case 'GraphDeleted':
      if (isGraphEvent(event)) forgetGraph(state, event.data.graph_id);
      break;
    case 'NodesAdded':
    case 'NodesChanged':
      learnKafkaAliases(state, event.data.nodes);
      if (isGraphEvent(event)) indexNodes(state, event.data.graph_id, event.data.nodes);
      if (state.marquez.deleted.size > 0) restoreNodes(state, event.data.nodes);
      break;
    case 'NodesRemoved':
      if (isGraphEvent(event)) for (const id of event.data.node_ids) unindexNode(state, event.data.graph_id, id);
      break;
    case 'OpenLineageEventIngested':
      if (event.metadata.cause === 'view' || state.dedupeKeys.has(event.data.dedupe_key)) break;
      state.dedupeKeys.add(event.data.dedupe_key);
      foldIngested(state, event.data.kind, event.data.event);
      if (state.marquez.deleted.size > 0) restoreNamed(state, event.data.event);
      break;
    case 'MarquezTagAdded':
    case 'MarquezTagRemoved':
    case 'MarquezElementDeleted':
      foldMarquezWrite(state, event);
      break;
    case 'MarquezTagDefined':
      state.marquez.definitions.set(event.data.tag, event.data.description);
      break;
    default:
      break;
  }
  return state;
}

/** A write of the Marquez API: a tag put on or taken off a dataset, a field or a job; a dataset or job deleted. */
function foldMarquezWrite(
  state: OpenLineageState,
  event: Extract<StoredLineageEvent, { type: 'MarquezTagAdded' | 'MarquezTagRemoved' | 'MarquezElementDeleted' }>,
): void {
  const { marquez } = state;
  const key = marquezKey(event.data.element, datasetKey(event.data.namespace, event.data.name));
  const field = 'field' in event.data ? event.data.field : null;
  const tag = 'tag' in event.data ? event.data.tag : null;
  if (event.type === 'MarquezElementDeleted') marquez.deleted.add(key);
  else if (field === null) {
    const tags = marquez.tags.get(key) ?? new Set<string>();
    if (event.type === 'MarquezTagAdded') tags.add(tag!);
    else tags.delete(tag!);
    marquez.tags.set(key, tags);
  } else {
    const fields = marquez.fieldTags.get(key) ?? new Map<string, Set<string>>();
    const tags = fields.get(field) ?? new Set<string>();
    if (event.type === 'MarquezTagAdded') tags.add(tag!);
    else tags.delete(tag!);
    fields.set(field, tags);
    marquez.fieldTags.set(key, fields);
  }
  const { metadata } = event;
  push(marquez.history, key, {
    type: event.type,
    field,
    tag,
    position: event.position,
    recorded_at: event.recorded_at,
    cause: metadata.cause ?? null,
    actor: metadata.actor ?? null,
    correlation_id: metadata.correlation_id ?? null,
  });
}

/** Marquez's soft delete: a deleted job or dataset that a new OpenLineage event names shows again. */
function restoreNamed(state: OpenLineageState, event: IngestedEvent): void {
  const job = jobOf(event);
  if (job) state.marquez.deleted.delete(marquezKey('job', datasetKey(job.namespace, job.name)));
  const named = [
    event.dataset,
    ...(Array.isArray(event.inputs) ? event.inputs : []),
    ...(Array.isArray(event.outputs) ? event.outputs : []),
  ];
  for (const dataset of named) {
    if (isObject(dataset) && typeof dataset.namespace === 'string' && typeof dataset.name === 'string')
      state.marquez.deleted.delete(marquezKey('dataset', datasetKey(dataset.namespace, dataset.name)));
  }
}

/** A deleted dataset or job whose graph node a later graph change records (added or changed) shows again. */
function restoreNodes(state: OpenLineageState, nodes: readonly Node[]): void {
  for (const node of nodes) {
    if (DATASET_NODE_TYPES.has(node.node_type)) {
      const identity = openLineageIdentity(node);
      state.marquez.deleted.delete(marquezKey('dataset', datasetKey(identity.namespace, identity.name)));
    } else if (JOB_NODE_TYPES.has(node.node_type)) {
      const { name } = openLineageIdentity(node);
      // A job's namespace may depend on its neighbours: every deleted job of that name shows again.
      for (const key of state.marquez.deleted) {
        if (key.startsWith('job\u0000') && splitDatasetKey(key.slice('job\u0000'.length)).name === name)
          state.marquez.deleted.delete(key);
      }
    }
  }
}

/** Joins `kafka://{bootstrap}` with `stream://{env}/{cluster}` for stream nodes that carry a bootstrap endpoint. */
function learnKafkaAliases(state: OpenLineageState, nodes: readonly Node[]): void {
  for (const node of nodes) {
    if (node.system !== 'STREAM' || !node.cluster_id) continue;
    const bootstrap = nodeBootstrap(node);
    const kafka = bootstrap === null ? null : kafkaNamespace(bootstrap);
    if (kafka !== null) state.identities.alias(kafka, streamNamespace(node.environment_id, node.cluster_id));
  }
}

/**
 * Indexes nodes of graph `graphId` (replacing what a changed node was indexed under): a dataset node
 * in `graphDatasets` under its `datasetKey(namespace, name)`, its identity registered in `identities`
 * so that symlinks and Kafka aliases join it; a job node in `graphJobs` under its name.
 */
function indexNodes(state: OpenLineageState, graphId: string, nodes: readonly Node[]): void {
  for (const node of nodes) {
    if (DATASET_NODE_TYPES.has(node.node_type)) {
      const identity = openLineageIdentity(node);
      state.graphJobs.remove(graphId, node.id);
      state.graphDatasets.put(state.identities.add(identity.namespace, identity.name), graphId, node.id);
    } else if (JOB_NODE_TYPES.has(node.node_type)) {
      state.graphDatasets.remove(graphId, node.id);
      state.graphJobs.put(openLineageIdentity(node).name, graphId, node.id);
    } else unindexNode(state, graphId, node.id);
  }
}

/** Removes one node of graph `graphId` from the indexes (nothing when it is not indexed). */
function unindexNode(state: OpenLineageState, graphId: string, nodeId: string): void {
  state.graphDatasets.remove(graphId, nodeId);
  state.graphJobs.remove(graphId, nodeId);
}

/** Forgets every node of graph `graphId` (it was deleted, or created anew). */
function forgetGraph(state: OpenLineageState, graphId: string): void {
  state.graphDatasets.forgetGraph(graphId);
  state.graphJobs.forgetGraph(graphId);
}

/** The job of an event (`job.namespace`, `job.name`, `job.facets`), or null when it has none. */
function jobOf(event: IngestedEvent): { namespace: string; name: string; facets: unknown } | null {
  const job = isObject(event.job) ? event.job : null;
  if (!job || typeof job.namespace !== 'string' || typeof job.name !== 'string') return null;
  return { namespace: job.namespace, name: job.name, facets: job.facets };
}

/** The record of a new event (`job` is `jobOf(event)`): its eventTime, job key, runId and eventType. */
function recordOf(
  state: OpenLineageState,
  kind: OpenLineageEventKind,
  event: IngestedEvent,
  job: { namespace: string; name: string } | null,
): EventRecord {
  const time = typeof event.eventTime === 'string' ? parseEventTime(event.eventTime) : null;
  const run = isObject(event.run) ? event.run : null;
  return {
    seq: state.events.length,
    kind,
    event,
    timeMs: time?.ms ?? 0,
    jobKey: job === null ? null : datasetKey(job.namespace, job.name),
    runId: run && typeof run.runId === 'string' ? run.runId : null,
    eventType: kind === 'RunEvent' ? (typeof event.eventType === 'string' ? event.eventType : 'OTHER') : null,
  };
}

/** Folds one new OpenLineage event (its `dedupe_key` not seen before). */
function foldIngested(state: OpenLineageState, kind: OpenLineageEventKind, event: IngestedEvent): void {
  const job = jobOf(event);
  const record = recordOf(state, kind, event, job);
  const last = state.events[state.events.length - 1];
  if (last && byTime(last, record) > 0) state.eventsSorted = false;
  state.events.push(record);
  if (kind === 'DatasetEvent') {
    registerDataset(state, event.dataset, record.timeMs);
    return;
  }
  if (job === null || record.jobKey === null) return;
  push(state.byJob, record.jobKey, record);
  push(state.byJobNamespace, job.namespace, record);
  push(state.byJobName, job.name, record);
  const jobState = jobStateOf(state, record.jobKey, job);
  if (record.timeMs >= jobState.lastMs) {
    jobState.lastMs = record.timeMs;
    mergeFacets(jobState.facets, job.facets);
  }
  if (record.runId !== null) foldRun(state, jobState, record, job);
  else if (!jobState.latestJobEvent || record.timeMs >= jobState.latestJobEvent.timeMs)
    jobState.latestJobEvent = record;
  linkJob(state, jobState, record.jobKey, event, record.timeMs);
}

/** The state of a job, created on its first event. */
function jobStateOf(
  state: OpenLineageState,
  jobKey: string,
  job: { namespace: string; name: string; facets: unknown },
): JobState {
  let jobState = state.jobs.get(jobKey);
  if (!jobState) {
    jobState = {
      namespace: job.namespace,
      name: job.name,
      facets: {},
      latestRunId: null,
      latestRunMs: Number.NEGATIVE_INFINITY,
      latestJobEvent: null,
      lastMs: Number.NEGATIVE_INFINITY,
      linked: null,
    };
    state.jobs.set(jobKey, jobState);
  }
  return jobState;
}

/**
 * Indexes a RunEvent under its runId as received, lower-cased, and (for a non-UUID runId) the UUIDv5
 * of (job namespace, job name, runId) that ingestion reports as `run_uuid`; moves the job's latest run.
 */
function foldRun(
  state: OpenLineageState,
  jobState: JobState,
  record: EventRecord,
  job: { namespace: string; name: string },
): void {
  const runId = record.runId!;
  // Each distinct key once: most runIds are lower-case UUIDs, indexed under one key.
  push(state.byRun, runId, record);
  const lower = runId.toLowerCase();
  if (lower !== runId) push(state.byRun, lower, record);
  if (!isUuid(runId)) {
    const uuid = uuidv5(`${job.namespace}\n${job.name}\n${runId}`, NON_UUID_RUN_NAMESPACE);
    if (uuid !== runId && uuid !== lower) push(state.byRun, uuid, record);
  }
  if (record.timeMs >= jobState.latestRunMs) {
    jobState.latestRunMs = record.timeMs;
    jobState.latestRunId = runId;
  }
}

/**
 * Adds the job's input edges (dataset -> job) and output edges (job -> dataset) to the lineage graph.
 * A run of a known job usually names the inputs and outputs its previous event named: when they are
 * the ones `jobState.linked` holds, in the same order, their edges are in the graph already (edges are
 * never removed) and only the datasets are recorded (`registerDataset`), which leaves the state as
 * linking them again would.
 */
function linkJob(
  state: OpenLineageState,
  jobState: JobState,
  jobKey: string,
  event: IngestedEvent,
  timeMs: number,
): void {
  const inputs: readonly unknown[] = Array.isArray(event.inputs) ? event.inputs : [];
  const outputs: readonly unknown[] = Array.isArray(event.outputs) ? event.outputs : [];
  const linked = jobState.linked;
  if (linked !== null && sameDatasets(linked.inputs, inputs) && sameDatasets(linked.outputs, outputs)) {
    for (const input of inputs) registerDataset(state, input, timeMs);
    for (const output of outputs) registerDataset(state, output, timeMs);
    return;
  }
  const job = jobNode(jobKey);
  if (!state.graph.hasNode(job)) state.graph.addNode(job);
  for (const input of inputs) {
    const key = registerDataset(state, input, timeMs);
    if (key !== null) link(state, datasetNode(key), job);
  }
  for (const output of outputs) {
    const key = registerDataset(state, output, timeMs);
    if (key !== null) link(state, job, datasetNode(key));
  }
  jobState.linked = { inputs: inputs.map(datasetNameOf), outputs: outputs.map(datasetNameOf) };
}

/** Whether a dataset reference has a string `namespace` and `name`. */
function isDatasetRef(ref: unknown): ref is DatasetName & Record<string, unknown> {
  return isObject(ref) && typeof ref.namespace === 'string' && typeof ref.name === 'string';
}

/** A dataset reference's `namespace` and `name` (copied), or null when it lacks a string one of them. */
function datasetNameOf(ref: unknown): DatasetName | null {
  return isDatasetRef(ref) ? { namespace: ref.namespace, name: ref.name } : null;
}

/** True when `refs` name the datasets of `names`, in the same order (`datasetNameOf` of each is equal). */
function sameDatasets(names: ReadonlyArray<DatasetName | null>, refs: readonly unknown[]): boolean {
  if (names.length !== refs.length) return false;
  for (let index = 0; index < refs.length; index += 1) {
    const name = names[index]!;
    const ref = refs[index];
    const valid = isDatasetRef(ref);
    if (name === null ? valid : !valid || ref.namespace !== name.namespace || ref.name !== name.name) return false;
  }
  return true;
}

/**
 * The edge `source -> target`, merged (with its nodes) when it is new. Most events repeat a job's
 * edges: graphology's `hasEdge` answers them in a third of `mergeEdge`'s time.
 */
function link(state: OpenLineageState, source: string, target: string): void {
  if (!state.graph.hasEdge(source, target)) state.graph.mergeEdge(source, target);
}

/**
 * Records a dataset mentioned at `timeMs`: creates it, widens its first/last seen times, merges its
 * facets (the latest event wins; an older event only fills facets not known yet) and joins its
 * `symlinks` identifiers with it.
 * @returns its dataset key, or null when `ref` has no string `namespace` and `name`.
 */
function registerDataset(state: OpenLineageState, ref: unknown, timeMs: number): string | null {
  if (!isDatasetRef(ref)) return null;
  const { identities } = state;
  const key = identities.add(ref.namespace, ref.name);
  let dataset = state.datasets.get(key);
  if (!dataset) {
    dataset = { namespace: ref.namespace, name: ref.name, facets: {}, firstMs: timeMs, lastMs: timeMs };
    state.datasets.set(key, dataset);
    let keys = state.datasetsByNamespace.get(ref.namespace);
    if (!keys) state.datasetsByNamespace.set(ref.namespace, (keys = new Set()));
    keys.add(key);
    state.graph.addNode(datasetNode(key));
  }
  if (timeMs < dataset.firstMs) dataset.firstMs = timeMs;
  if (timeMs >= dataset.lastMs) {
    dataset.lastMs = timeMs;
    mergeFacets(dataset.facets, ref.facets);
  } else if (isObject(ref.facets)) {
    for (const [name, value] of Object.entries(ref.facets)) if (!(name in dataset.facets)) dataset.facets[name] = value;
  }
  for (const link of symlinkIdentifiers(ref.facets)) identities.union(key, identities.add(link.namespace, link.name));
  return key;
}

/** Merges facets key by key (later wins); a facet `{_deleted: true}` removes the key. */
function mergeFacets(into: Record<string, unknown>, facets: unknown): void {
  if (!isObject(facets)) return;
  for (const [key, value] of Object.entries(facets)) {
    if (isObject(value) && value._deleted === true) delete into[key];
    else into[key] = value;
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
