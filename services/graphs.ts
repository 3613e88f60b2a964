/**
 * What the graph routes call: one function per endpoint, each a thin composition of the graph
 * commands (`src/graphCommands.ts`), the validation (`src/graph/validation.ts`), the projection
 * (`projections/graphProjection.ts`) and the traversals (`projections/traversal/`). Reads come from
 * the projection, or, with `as_of`, from the graph's stream folded up to that point. Whole graphs and
 * traversals are answered as values (`WholeGraph`, `Traversal`) that the route serializes. Every
 * function throws our errors (`NotFoundError` 404, `ValidationError` 400, `ExpectedRevisionConflictError`
 * 409) and nothing else on bad input. Contract section 4 ("Graphs", "History").
 *
 * Metrics: the graph projection holds no metric values; they are samples in the metrics projection
 * (`projections/metricsProjection.ts`). The reads of nodes (whole graph, export, node list, one node,
 * traversals) lay each node's latest sample over its attributes under the `metrics_*` names the
 * graph file uses (`withMetricAttributes` in `src/extraction/metrics.ts`); with `as_of`, the latest
 * sample recorded at or before that point, when the bounded series still holds one. History, diff and
 * edges never show samples: metric samples are not graph changes. `nodeMetricSeries` answers a
 * node's series.
 */
import { randomUUID } from 'node:crypto';
import { ConflictError, NotFoundError } from '../src/errors.js';
import type { EventContext } from '../src/events.js';
import { countChanges } from '../src/graph/changes.js';
import {
  edgeKey,
  type Edge,
  type EdgeType,
  type LineageGraph,
  type Node,
  type NodeType,
  type System,
} from '../src/graph/model.js';
import {
  checkDeferredEdges,
  parseEdge,
  parseNode,
  validateLineageGraph,
  type ValidatedGraph,
} from '../src/graph/validation.js';
import { createGraph, deleteGraph, recordGraph } from '../src/graphCommands.js';
import { ValidationError } from '../src/errors.js';
import { metricAttributes } from '../src/extraction/metrics.js';
import { METRIC_SERIES_LIMIT, pointAt, type MetricPoint } from '../projections/metricsProjection.js';
import { diffGraphAsOf, edgeLabel, readGraphAsOf } from '../projections/snapshots.js';
import { stateOfView, viewOfState, type GraphView } from '../projections/historyIndex.js';
import { graphReader, parseAsOf, type GraphHistoryEntry, type GraphState } from '../projections/graphProjection.js';
import {
  plainWholeGraph,
  serializeJson,
  traverse,
  walkedTraversal,
  type Traversal,
  type TraversalDirection,
  type WholeGraph,
} from '../projections/traversal/index.js';
import type { LineageRuntime } from './runtime.js';

/** The part of the runtime the graph endpoints use; without `metrics`, nodes are read without metric samples. */
export type GraphRuntime = Pick<LineageRuntime, 'store' | 'graphs' | 'commands'> &
  Partial<Pick<LineageRuntime, 'metrics'>>;

/** Lays a node's metric sample over its attributes; answers the node itself when it has none. */
type MetricsOverlay = <T extends Node>(node: T) => T;

/**
 * The overlay of a graph's metric samples on its nodes: each node's latest sample, or with `asOf` the
 * latest recorded at or before that point (a time, or the time of the revision's last event). Undefined
 * when the graph has no sample (nothing to lay over: reads cost nothing more).
 */
export function metricsOverlay(
  runtime: GraphRuntime,
  state: Pick<GraphState, 'graphId' | 'updatedAt'>,
  asOf?: string,
): MetricsOverlay | undefined {
  const nodes = runtime.metrics?.graph(state.graphId);
  if (!nodes || nodes.size === 0) return undefined;
  let limit = Number.POSITIVE_INFINITY;
  if (asOf !== undefined) {
    const point = parseAsOf(asOf);
    limit = 'time' in point ? Date.parse(point.time) : state.updatedAt ? Date.parse(state.updatedAt) : -Infinity;
  }
  return <T extends Node>(node: T): T => {
    const series = nodes.get(node.id);
    if (!series) return node;
    const point = limit === Number.POSITIVE_INFINITY ? series[series.length - 1] : pointAt(series, limit);
    return point ? { ...node, attributes: Object.assign({}, node.attributes, pointAttributes(point)) } : node;
  };
}

/** The attributes each sample lays over its node, computed once per sample (the overlay of a 100k-node graph reads them 80k times). */
const POINT_ATTRIBUTES = new WeakMap<MetricPoint, Record<string, unknown>>();

/** `metricAttributes` of a sample: its values plus `metrics_window_hours`. */
function pointAttributes(point: MetricPoint): Record<string, unknown> {
  let attributes = POINT_ATTRIBUTES.get(point);
  if (!attributes) POINT_ATTRIBUTES.set(point, (attributes = metricAttributes(point.metrics, point)));
  return attributes;
}

/** A graph in the list (`GET /graphs`). Times are ISO 8601. */
export interface GraphSummary {
  graph_id: string;
  name: string | null;
  description: string | null;
  node_count: number;
  edge_count: number;
  /** Revision of the graph stream (the number of its events minus one). */
  revision: number;
  created_at: string | null;
  updated_at: string | null;
}

/** Metadata of events appended for an API request: one correlation id per request. */
export function apiContext(cause: 'api' | 'import', correlationId: string = randomUUID()): EventContext {
  return { correlation_id: correlationId, cause, actor: 'api' };
}

/** A graph's summary, from its state or a view of it (`projections/historyIndex.ts`). */
export function summarize(state: GraphState | GraphView): GraphSummary {
  return {
    graph_id: state.graphId,
    name: state.name,
    description: state.description,
    node_count: 'nodeCount' in state ? state.nodeCount : state.graph.order,
    edge_count: 'edgeCount' in state ? state.edgeCount : state.graph.size,
    revision: state.revision,
    created_at: state.createdAt,
    updated_at: state.updatedAt,
  };
}

/** Every live graph, most recently changed first. */
export function listGraphs(runtime: GraphRuntime): GraphSummary[] {
  return runtime.graphs.list().map(summarize);
}

/**
 * The graph views, pushes and enrichment use when none is named: the most recently changed live graph.
 * @throws NotFoundError when there is no graph at all.
 */
export function defaultGraph(runtime: GraphRuntime): GraphState {
  const state = runtime.graphs.list()[0];
  if (!state) throw new NotFoundError('there is no graph yet: create one, import one, or run an extraction');
  return state;
}

/**
 * The id of the graph that `idOrName` names: a graph's id (live or deleted, so that history stays
 * reachable), else the name of exactly one live graph. Anything else is returned as given, so that
 * the caller's own "not found" applies.
 * @throws ConflictError when several live graphs carry that name (names are unique since graphs are
 *   created through `createEmptyGraph`, but older stores may hold duplicates).
 */
export function resolveGraphId(runtime: Pick<GraphRuntime, 'graphs'>, idOrName: string): string {
  if (runtime.graphs.getIncludingDeleted(idOrName)) return idOrName;
  const named = runtime.graphs.list().filter((state) => state.name === idOrName);
  if (named.length > 1) {
    throw new ConflictError(
      `${named.length} graphs are named "${idOrName}" (${named.map((state) => state.graphId).join(', ')}): use an id`,
    );
  }
  return named[0]?.graphId ?? idOrName;
}

/**
 * A graph now, or as of `asOf` (an ISO 8601 time or a stream revision), by id or unique name, as a
 * `GraphState`. A past state comes from `readGraphView`, with a resident graph built for it when
 * the history index answered (traversals and exports need one; the other reads use the view).
 * @throws NotFoundError for an unknown or deleted graph (or one deleted or not yet created as of that point);
 *   ValidationError for a malformed `asOf`.
 */
export async function readGraph(runtime: GraphRuntime, idOrName: string, asOf?: string): Promise<GraphState> {
  if (asOf === undefined) {
    const graphId = resolveGraphId(runtime, idOrName);
    const state = runtime.graphs.get(graphId);
    if (!state) throw new NotFoundError(`graph "${graphId}" not found`);
    return state;
  }
  return stateOfView(await readGraphView(runtime, idOrName, asOf));
}

/**
 * A graph now, or as of `asOf`, by id or unique name, as a read view (`GraphView`, used at once: it is
 * valid until the next macrotask). A past point is read from the history index of the live graph
 * (`projections/historyIndex.ts`; no store read, no copy of the graph) when it is recent enough, else
 * folded from the nearest snapshot before it (`readGraphAsOf` in `projections/snapshots.ts`).
 * @throws NotFoundError for an unknown or deleted graph (or one deleted or not yet created as of that point);
 *   ValidationError for a malformed `asOf`.
 */
export async function readGraphView(runtime: GraphRuntime, idOrName: string, asOf?: string): Promise<GraphView> {
  const graphId = resolveGraphId(runtime, idOrName);
  if (asOf === undefined) {
    const state = runtime.graphs.get(graphId);
    if (!state) throw new NotFoundError(`graph "${graphId}" not found`);
    return viewOfState(state);
  }
  const point = parseAsOf(asOf);
  const live = runtime.graphs.getIncludingDeleted(graphId);
  if (!live) throw new NotFoundError(`graph "${graphId}" not found`);
  let view = runtime.graphs.history?.view(live, point);
  if (view === null) {
    const at = 'revision' in point ? `revision ${point.revision}` : point.time;
    throw new NotFoundError(`graph "${graphId}" did not exist as of ${at}`);
  }
  view ??= viewOfState((await readGraphAsOf(runtime.store, graphId, point)).state);
  if (view.deleted) throw new NotFoundError(`graph "${graphId}" was deleted as of ${asOf}`);
  return view;
}

/**
 * Creates an empty graph; answers its summary.
 * @throws ConflictError when a live graph has that name already (graphs are addressed by name too).
 */
export async function createEmptyGraph(
  runtime: GraphRuntime,
  input: { name?: string | null | undefined; description?: string | null | undefined },
): Promise<GraphSummary> {
  const taken = input.name ? runtime.graphs.list().find((state) => state.name === input.name) : undefined;
  if (taken) throw new ConflictError(`a graph named "${input.name}" exists already (${taken.graphId})`);
  const result = await createGraph(
    runtime.commands,
    { name: input.name ?? null, description: input.description ?? null },
    apiContext('api'),
  );
  return summarize(await readGraph(runtime, result.graphId));
}

/** Deletes a graph (its history stays readable). @throws NotFoundError for an unknown graph. */
export async function removeGraph(
  runtime: GraphRuntime,
  graphId: string,
): Promise<{ graph_id: string; status: 'deleted'; revision: number }> {
  const result = await deleteGraph(runtime.commands, graphId, apiContext('api'));
  return { graph_id: graphId, status: 'deleted', revision: result.revision };
}

/** What an import recorded. */
export interface ImportResult {
  graph_id: string;
  mode: 'merge' | 'replace';
  /** Revision of the graph stream afterwards. */
  revision: number;
  /** What changed (0 everywhere when the payload matched the graph already). */
  changes: ReturnType<typeof countChanges>;
  node_count: number;
  edge_count: number;
}

/**
 * Imports a LineageGraph body into an existing graph. `merge` upserts the payload's nodes and edges
 * (edges may point at nodes already in the graph); `replace` makes the graph equal to the payload.
 * Only the difference is recorded. The body is parsed on the caller's thread; the API hands large
 * bodies to a worker thread first and calls `importValidatedGraph` (`infra/http/graphImport.ts`).
 * @throws NotFoundError for an unknown graph; ValidationError listing the first 1,000 problems of the
 *   payload with the count of all (`issueCount`).
 */
export async function importGraph(
  runtime: GraphRuntime,
  graphId: string,
  body: unknown,
  mode: 'merge' | 'replace',
): Promise<ImportResult> {
  await readGraph(runtime, graphId);
  // The body is this request's own: its items are replaced by their parsed form as they are checked.
  const validated = validateLineageGraph(body, { inPlace: true, deferUnknownEndpoints: true });
  return importValidatedGraph(runtime, graphId, validated, mode);
}

/**
 * Imports a graph that passed `validateLineageGraph` (whose edges joining nodes absent from it were
 * deferred): checks those edges against the graph's stored nodes (`merge`) or refuses them
 * (`replace`), then records the difference as `importGraph` does.
 * @throws NotFoundError for an unknown graph; ValidationError for a deferred edge that joins no
 *   node, or goes against its type's direction (the first 1,000, with the count of all).
 */
export async function importValidatedGraph(
  runtime: GraphRuntime,
  graphId: string,
  validated: ValidatedGraph,
  mode: 'merge' | 'replace',
): Promise<ImportResult> {
  const current = await readGraph(runtime, graphId);
  const { graph, deferredEdges } = validated;
  if (deferredEdges.length > 0) {
    const stored = mode === 'merge' ? graphReader(current).getNode : undefined;
    const given = new Map(graph.nodes.map((node) => [node.id, node]));
    checkDeferredEdges(validated, (id) => given.get(id) ?? stored?.(id));
  }
  const result = await recordGraph(runtime.commands, graphId, graph, { mode, trusted: true }, apiContext('import'));
  const after = await readGraph(runtime, graphId);
  return {
    graph_id: graphId,
    mode,
    revision: result.revision,
    changes: countChanges(result.changes),
    node_count: after.graph.order,
    edge_count: after.graph.size,
  };
}

/**
 * The graph as a LineageGraph (`GET /graphs/{id}/export`): a `WholeGraph` without fields.
 * @throws NotFoundError for an unknown or deleted graph; ValidationError for a malformed `asOf`.
 */
export async function exportGraph(runtime: GraphRuntime, graphId: string, asOf?: string): Promise<WholeGraph> {
  return wholeGraph(runtime, graphId, asOf, false);
}

/**
 * The whole graph with its summary (`GET /graphs/{id}`): a `WholeGraph` whose fields are the
 * `GraphSummary`, then its nodes and edges.
 * @throws NotFoundError for an unknown or deleted graph; ValidationError for a malformed `asOf`.
 */
export async function graphWithContent(runtime: GraphRuntime, graphId: string, asOf?: string): Promise<WholeGraph> {
  return wholeGraph(runtime, graphId, asOf, true);
}

/** The whole graph now, or as of `asOf`, with its summary first when `withSummary`. */
async function wholeGraph(
  runtime: GraphRuntime,
  graphId: string,
  asOf: string | undefined,
  withSummary: boolean,
): Promise<WholeGraph> {
  const view = await readGraphView(runtime, graphId, asOf);
  const graph: LineageGraph = { nodes: [], edges: [] };
  view.forEachNode((node) => graph.nodes.push(node));
  view.forEachEdge((edge) => graph.edges.push(edge));
  const overlay = metricsOverlay(runtime, view, asOf);
  if (overlay) graph.nodes = graph.nodes.map(overlay);
  return plainWholeGraph(graph, withSummary ? { ...summarize(view) } : {});
}

/** Filters of `GET /graphs/{id}/nodes` (contract section 4). `search` is a case-insensitive substring. */
export interface NodeFilter {
  node_type?: NodeType | undefined;
  system?: System | undefined;
  environment_id?: string | undefined;
  cluster_id?: string | undefined;
  search?: string | undefined;
  limit: number;
  offset: number;
  as_of?: string | undefined;
}

/** Nodes matching the filter, in insertion order, one page of them. */
export async function listNodes(
  runtime: GraphRuntime,
  graphId: string,
  filter: NodeFilter,
): Promise<{ nodes: Node[]; total: number; limit: number; offset: number }> {
  const view = await readGraphView(runtime, graphId, filter.as_of);
  const needle = filter.search?.toLowerCase();
  const matches: Node[] = [];
  view.forEachNode((node) => {
    if (filter.node_type !== undefined && node.node_type !== filter.node_type) return;
    if (filter.system !== undefined && node.system !== filter.system) return;
    if (filter.environment_id !== undefined && node.environment_id !== filter.environment_id) return;
    if (filter.cluster_id !== undefined && node.cluster_id !== filter.cluster_id) return;
    if (
      needle !== undefined &&
      !node.display_name.toLowerCase().includes(needle) &&
      !node.qualified_name.toLowerCase().includes(needle)
    )
      return;
    matches.push(node);
  });
  const page = matches.slice(filter.offset, filter.offset + filter.limit);
  const overlay = metricsOverlay(runtime, view, filter.as_of);
  return {
    nodes: overlay ? page.map(overlay) : page,
    total: matches.length,
    limit: filter.limit,
    offset: filter.offset,
  };
}

/** One node. @throws NotFoundError for an unknown graph or node. */
export async function getNode(runtime: GraphRuntime, graphId: string, nodeId: string, asOf?: string): Promise<Node> {
  const view = await readGraphView(runtime, graphId, asOf);
  const node = view.getNode(nodeId);
  if (!node) throw new NotFoundError(`node "${nodeId}" not found in graph "${graphId}"`);
  return metricsOverlay(runtime, view, asOf)?.(node) ?? node;
}

/**
 * Adds a node, or replaces the node with the same id (an upsert). Answers whether it was created.
 * @throws NotFoundError for an unknown graph; ValidationError for an invalid node.
 */
export async function putNode(
  runtime: GraphRuntime,
  graphId: string,
  body: unknown,
): Promise<{ created: boolean; node: Node; revision: number }> {
  const node = parseNode(body);
  const result = await recordGraph(
    runtime.commands,
    graphId,
    { nodes: [node], edges: [] },
    { mode: 'merge' },
    apiContext('api'),
  );
  return { created: result.changes.nodesAdded.length > 0, node, revision: result.revision };
}

/**
 * Adds an edge, or replaces the attributes of the same edge (same endpoints and type).
 * @throws NotFoundError for an unknown graph or endpoint; ValidationError for a malformed edge or one
 *   against its type's direction (contract section 2).
 */
export async function putEdge(
  runtime: GraphRuntime,
  graphId: string,
  body: Edge,
): Promise<{ created: boolean; edge: Edge; revision: number }> {
  const state = await readGraph(runtime, graphId);
  for (const id of [body.src_id, body.dst_id]) {
    if (!state.graph.hasNode(id)) throw new NotFoundError(`node "${id}" not found in graph "${graphId}"`);
  }
  const reader = graphReader(state);
  const edge = parseEdge(body, reader.getNode);
  const result = await recordGraph(
    runtime.commands,
    graphId,
    { nodes: [], edges: [edge] },
    { mode: 'merge' },
    apiContext('api'),
  );
  return { created: result.changes.edgesAdded.length > 0, edge, revision: result.revision };
}

/** Filters of `GET /graphs/{id}/edges`. */
export interface EdgeFilter {
  edge_type?: EdgeType | undefined;
  /** Edges touching this node (either end). */
  node_id?: string | undefined;
  limit: number;
  offset: number;
  as_of?: string | undefined;
}

/** Edges matching the filter, in insertion order, one page of them. */
export async function listEdges(
  runtime: GraphRuntime,
  graphId: string,
  filter: EdgeFilter,
): Promise<{ edges: Edge[]; total: number; limit: number; offset: number }> {
  const view = await readGraphView(runtime, graphId, filter.as_of);
  const matches: Edge[] = [];
  view.forEachEdge((edge) => {
    if (filter.edge_type !== undefined && edge.edge_type !== filter.edge_type) return;
    if (filter.node_id !== undefined && edge.src_id !== filter.node_id && edge.dst_id !== filter.node_id) return;
    matches.push(edge);
  });
  return {
    edges: matches.slice(filter.offset, filter.offset + filter.limit),
    total: matches.length,
    limit: filter.limit,
    offset: filter.offset,
  };
}

/**
 * Upstream or downstream traversal from a node, walked now, as a value. The current revision of a
 * graph that has been quiet for a while is walked on its traversal index; anything else (a graph "as
 * of" a past point, or one that just changed) on the resident graph. Both give the same answer.
 * @throws NotFoundError for an unknown graph or node; ValidationError for hops outside 1..100 or a
 *   malformed `asOf`.
 */
export async function traverseGraph(
  runtime: GraphRuntime,
  graphId: string,
  nodeId: string,
  direction: TraversalDirection,
  hops: number,
  asOf?: string,
): Promise<Traversal> {
  const index = asOf === undefined ? runtime.graphs.traversalIndex(graphId, { build: false }) : undefined;
  const state = index ? runtime.graphs.get(graphId) : await readGraph(runtime, graphId, asOf);
  const traversal = index
    ? index.traversal(nodeId, direction, hops)
    : walkedTraversal(traverse(state!.graph, nodeId, direction, hops));
  const overlay = state ? metricsOverlay(runtime, state, asOf) : undefined;
  return overlay ? withMetrics(traversal, overlay) : traversal;
}

/** A traversal whose origin and reached nodes carry their metric samples (`metricsOverlay`). */
function withMetrics(traversal: Traversal, overlay: MetricsOverlay): Traversal {
  const toResult = () => {
    const result = traversal.toResult();
    return { ...result, origin: overlay(result.origin), nodes: result.nodes.map(overlay) };
  };
  return {
    direction: traversal.direction,
    hops: traversal.hops,
    nodeCount: traversal.nodeCount,
    edgeCount: traversal.edgeCount,
    toResult,
    serialize: () => serializeJson(toResult()),
  };
}

/** The changes of a graph, oldest first (deleted graphs keep their history). @throws NotFoundError. */
export function graphHistory(
  runtime: GraphRuntime,
  graphId: string,
): { graph_id: string; changes: Array<Omit<GraphHistoryEntry, 'correlation_id'> & { correlation_id: string | null }> } {
  const state = runtime.graphs.getIncludingDeleted(graphId);
  if (!state) throw new NotFoundError(`graph "${graphId}" not found`);
  return { graph_id: graphId, changes: state.history.map((entry) => ({ ...entry, counts: { ...entry.counts } })) };
}

/** One end of a diff: what was asked and the state it resolved to. */
export interface DiffPoint {
  /** The `from` or `to` value as given (`null` for "now"). */
  as_of: string | null;
  /** Revision of the graph stream at that point (-1 before the graph existed). */
  revision: number;
  /** Time of the last event at that point (null before the graph existed). */
  time: string | null;
}

/** The difference between two points of a graph's history (contract section 4, "History"). */
export interface GraphDiff {
  graph_id: string;
  from: DiffPoint;
  to: DiffPoint;
  nodes: { added: Node[]; removed: Node[]; changed: Array<{ id: string; before: Node; after: Node }> };
  edges: { added: Edge[]; removed: Edge[]; changed: Array<{ id: string; before: Edge; after: Edge }> };
}

/** The id of an edge in a diff: `{src_id} -[{edge_type}]-> {dst_id}`. */
export { edgeLabel };

/**
 * What changed in a graph between `from` and `to` (each an ISO 8601 time or a stream revision; `to`
 * defaults to now). A point before the graph was created counts as the empty graph. Computed from the
 * versions between the two points in the history index (`projections/historyIndex.ts`) when both are
 * recent enough, else from the events between them (`diffGraphAsOf` in `projections/snapshots.ts`), so
 * its cost follows the change, not the length of the history; every list is sorted by node id or edge key.
 * @throws NotFoundError for an unknown graph; ValidationError for a malformed point.
 */
export async function diffGraphHistory(
  runtime: GraphRuntime,
  graphId: string,
  from: string,
  to?: string,
): Promise<GraphDiff> {
  const live = runtime.graphs.getIncludingDeleted(graphId);
  if (!live) throw new NotFoundError(`graph "${graphId}" not found`);
  const [fromPoint, toPoint] = [
    parseAsOf(from),
    to === undefined ? { revision: Number.MAX_SAFE_INTEGER } : parseAsOf(to),
  ];
  const diff =
    runtime.graphs.history?.diff(live, fromPoint, toPoint) ??
    (await diffGraphAsOf(runtime.store, graphId, fromPoint, toPoint));
  return {
    graph_id: graphId,
    from: { as_of: from, ...diff.from },
    to: { as_of: to ?? null, ...diff.to },
    nodes: diff.nodes,
    edges: diff.edges,
  };
}

/** A node's metric series (`GET /graphs/{id}/nodes/{node_id}/metrics`). */
export interface NodeMetricSeries {
  graph_id: string;
  node_id: string;
  /** The range asked for (ISO 8601, normalized to UTC), null when open. */
  since: string | null;
  until: string | null;
  /** Most samples kept per node (`METRIC_SERIES_LIMIT`): older ones are only in the store. */
  series_limit: number;
  /** The samples whose window ends within the range, oldest first. */
  samples: MetricPoint[];
  count: number;
}

/** Parses a range bound. @throws ValidationError unless it is an ISO 8601 time. */
function parseTimeBound(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const time = Date.parse(value);
  if (Number.isNaN(time) || !/^\d{4}-\d{2}-\d{2}/.test(value)) {
    throw new ValidationError(`${name} must be an ISO 8601 time (e.g. 2025-01-31T12:00:00Z), got "${value}"`);
  }
  return time;
}

/**
 * The metric samples of one node of a live graph (by id or unique name), oldest first, whose window
 * ends at or after `since` and at or before `until` (ISO 8601; each optional).
 * @throws ValidationError for a bound that is not an ISO 8601 time, or `since` after `until`;
 *   NotFoundError for an unknown or deleted graph, or a node that is neither in the graph nor sampled.
 */
export function nodeMetricSeries(
  runtime: GraphRuntime,
  idOrName: string,
  nodeId: string,
  range: { since?: string | undefined; until?: string | undefined } = {},
): NodeMetricSeries {
  const since = parseTimeBound('since', range.since);
  const until = parseTimeBound('until', range.until);
  if (since !== undefined && until !== undefined && since > until) {
    throw new ValidationError(`since (${range.since}) is after until (${range.until})`);
  }
  const graphId = resolveGraphId(runtime, idOrName);
  const state = runtime.graphs.get(graphId);
  if (!state) throw new NotFoundError(`graph "${graphId}" not found`);
  const series = runtime.metrics?.series(graphId, nodeId);
  if (!series && !state.graph.hasNode(nodeId)) {
    throw new NotFoundError(`node "${nodeId}" not found in graph "${graphId}"`);
  }
  const samples = (series ?? []).filter((point) => {
    const end = Date.parse(point.window_end);
    return (since === undefined || end >= since) && (until === undefined || end <= until);
  });
  return {
    graph_id: graphId,
    node_id: nodeId,
    since: since === undefined ? null : new Date(since).toISOString(),
    until: until === undefined ? null : new Date(until).toISOString(),
    series_limit: METRIC_SERIES_LIMIT,
    samples,
    count: samples.length,
  };
}
