/**
 * The drawing of a graph (issue 27, the first render of a large graph): what the web UI needs to lay
 * out, draw, filter and search a whole graph, and nothing else, in columns. A 100,000-node graph's
 * whole document (`GET /graphs/{id}`) is about 55 MB of JSON, most of it the same field names
 * repeated and attributes no drawing reads; its drawing is about 11 MB: node ids and names, node and
 * edge types, systems, environments and clusters as indexes into lists of their distinct values,
 * and edges as pairs of node indexes. A node's full record (attributes, schemas, column lineage) is
 * read on demand from the node, edge and traversal routes.
 *
 * Read from the projections (`readGraphView`: now, or as of a revision or time), with the metric
 * samples of that point laid over the nodes as the whole document has them; nothing is appended.
 */
import { setImmediate } from 'node:timers/promises';
import { jsonArrayParts } from '../projections/traversal/index.js';
import type { Edge, Node } from '../src/graph/model.js';
import { metricsOverlay, readGraphView, summarize, type GraphRuntime, type GraphSummary } from './graphs.js';

/**
 * The nodes, one entry per node in every column, in the graph's order: a node's index is its
 * position, which `edges` and `internal` use. Types, systems, environments and clusters are indexes
 * into the drawing's lists of distinct values (`node_types`, `systems`, `environments`, `clusters`).
 */
export interface DrawingNodes {
  id: string[];
  /** Index in `node_types`. */
  node_type: number[];
  /** Index in `systems`. */
  system: number[];
  display_name: string[];
  /** Null where it equals the display name (most stream nodes differ only by their cluster prefix). */
  qualified_name: (string | null)[];
  /** Index in `environments`; null outside any environment. */
  environment: (number | null)[];
  /** Index in `clusters`; null outside any cluster. */
  cluster: (number | null)[];
}

/** The edges, one entry per edge in every column, in the graph's order. */
export interface DrawingEdges {
  /** Index of the source node in `nodes`. */
  source: number[];
  /** Index of the target node in `nodes`. */
  target: number[];
  /** Index in `edge_types`. */
  edge_type: number[];
}

/**
 * Bytes of the latest metric sample of the nodes that have one (the edge widths of the drawing), one
 * entry per such node: the node's index, `metrics_received_bytes` and `metrics_sent_bytes` (bytes
 * per metric window; null when the sample has no such value).
 */
export interface DrawingThroughput {
  node: number[];
  received_bytes: (number | null)[];
  sent_bytes: (number | null)[];
}

/** `GET /graphs/{id}/drawing`: the graph's summary, then its nodes and edges in columns. */
export interface GraphDrawing extends GraphSummary {
  node_types: string[];
  systems: string[];
  edge_types: string[];
  environments: string[];
  clusters: string[];
  nodes: DrawingNodes;
  edges: DrawingEdges;
  /** Indexes of the nodes whose attributes mark them internal (`internal: true`, e.g. a platform's own topics). */
  internal: number[];
  throughput: DrawingThroughput;
}

/** A drawing as an answer: the value, and its JSON in parts (a column at a time) for a route to send. */
export interface DrawingAnswer {
  readonly drawing: GraphDrawing;
  /**
   * Its JSON in parts whose concatenation is `JSON.stringify(drawing)`'s text (one part per column:
   * the largest, a 100,000-node graph's ids, is about 5 MB), so that a route lets other requests run
   * in between.
   */
  jsonParts(): Generator<string, void, undefined>;
}

/** Positions of distinct values in a list, added in the order first met. */
class Dictionary {
  readonly values: string[] = [];
  readonly #index = new Map<string, number>();

  /** The index of `value`, added at the end when new. */
  indexOf(value: string): number {
    let index = this.#index.get(value);
    if (index === undefined) {
      index = this.values.length;
      this.values.push(value);
      this.#index.set(value, index);
    }
    return index;
  }
}

/** A finite number, else null. */
const finiteOrNull = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;

/** Nodes or edges per slice of the drawing's build and of its JSON: a few milliseconds of work each. */
export const DRAWING_SLICE_ITEMS = 10_000;

/** The nodes and edges of one point, taken at once (a past point's view is valid for one macrotask only). */
interface Snapshot {
  nodes: Node[];
  edges: Edge[];
  /** Position in `nodes` of each edge's source, then of its target. */
  ends: Int32Array;
}

/** The nodes and edges of `view`, read at once: now from the resident graph (ends as positions), a past point by id. */
function snapshotOf(view: Awaited<ReturnType<typeof readGraphView>>, now: boolean): Snapshot {
  const nodes: Node[] = [];
  const edges: Edge[] = [];
  const ends = new Int32Array(2 * view.edgeCount);
  if (now) {
    // The resident graph hands over each edge's ends as node positions, with no lookup by id (the
    // lookups were half the drawing's 200 ms at 100,000 nodes); a past point's view would build a
    // resident graph for that, so it looks the ids up instead.
    const graph = view.graph();
    graph.forEachNode((node) => nodes.push(node));
    for (const { edge, sourceIndex, targetIndex } of graph.edgeEntries()) {
      ends[2 * edges.length] = sourceIndex;
      ends[2 * edges.length + 1] = targetIndex;
      edges.push(edge);
    }
    return { nodes, edges, ends };
  }
  const indexOfNode = new Map<string, number>();
  view.forEachNode((node) => indexOfNode.set(node.id, nodes.push(node) - 1));
  view.forEachEdge((edge) => {
    const source = indexOfNode.get(edge.src_id);
    const target = indexOfNode.get(edge.dst_id);
    // Both ends of every stored edge are nodes of the graph (validated on write); skipped otherwise.
    if (source === undefined || target === undefined) return;
    ends[2 * edges.length] = source;
    ends[2 * edges.length + 1] = target;
    edges.push(edge);
  });
  return { nodes, edges, ends };
}

/**
 * The drawing of a graph now, or as of `asOf` (a revision or an ISO 8601 time, as the whole document
 * takes it). Its nodes and edges are read at once, then laid into columns `DRAWING_SLICE_ITEMS` at a
 * time with a turn of the event loop between slices, so that the requests waiting meanwhile (the
 * UI's grouped overview, its proxy's relaying) are not held up by a pass over a large graph.
 * @throws NotFoundError for an unknown or deleted graph (or one that did not exist at `asOf`);
 *   ValidationError for a malformed `asOf`.
 */
export async function graphDrawing(runtime: GraphRuntime, idOrName: string, asOf?: string): Promise<DrawingAnswer> {
  const view = await readGraphView(runtime, idOrName, asOf);
  const overlay = metricsOverlay(runtime, view, asOf);
  const summary = summarize(view);
  const snapshot = snapshotOf(view, asOf === undefined);
  // The samples of this point, laid over at once, as the whole graph has them.
  if (overlay) snapshot.nodes = snapshot.nodes.map(overlay);
  const nodeTypes = new Dictionary();
  const systems = new Dictionary();
  const edgeTypes = new Dictionary();
  const environments = new Dictionary();
  const clusters = new Dictionary();
  const nodes: DrawingNodes = {
    id: [],
    node_type: [],
    system: [],
    display_name: [],
    qualified_name: [],
    environment: [],
    cluster: [],
  };
  const internal: number[] = [];
  const throughput: DrawingThroughput = { node: [], received_bytes: [], sent_bytes: [] };
  for (let start = 0; start < snapshot.nodes.length; start += DRAWING_SLICE_ITEMS) {
    if (start > 0) await setImmediate();
    const end = Math.min(snapshot.nodes.length, start + DRAWING_SLICE_ITEMS);
    for (let index = start; index < end; index++) {
      const node = snapshot.nodes[index]!;
      nodes.id.push(node.id);
      nodes.node_type.push(nodeTypes.indexOf(node.node_type));
      nodes.system.push(systems.indexOf(node.system));
      nodes.display_name.push(node.display_name);
      nodes.qualified_name.push(node.qualified_name === node.display_name ? null : node.qualified_name);
      nodes.environment.push(node.environment_id ? environments.indexOf(node.environment_id) : null);
      nodes.cluster.push(node.cluster_id ? clusters.indexOf(node.cluster_id) : null);
      const attributes = node.attributes;
      if (!attributes) continue;
      if (attributes.internal === true) internal.push(index);
      const received = finiteOrNull(attributes.metrics_received_bytes);
      const sent = finiteOrNull(attributes.metrics_sent_bytes);
      if (received === null && sent === null) continue;
      throughput.node.push(index);
      throughput.received_bytes.push(received);
      throughput.sent_bytes.push(sent);
    }
  }
  const edges: DrawingEdges = { source: [], target: [], edge_type: [] };
  for (let start = 0; start < snapshot.edges.length; start += DRAWING_SLICE_ITEMS) {
    await setImmediate();
    const end = Math.min(snapshot.edges.length, start + DRAWING_SLICE_ITEMS);
    for (let index = start; index < end; index++) {
      edges.source.push(snapshot.ends[2 * index]!);
      edges.target.push(snapshot.ends[2 * index + 1]!);
      edges.edge_type.push(edgeTypes.indexOf(snapshot.edges[index]!.edge_type));
    }
  }
  const drawing: GraphDrawing = {
    ...summary,
    node_types: nodeTypes.values,
    systems: systems.values,
    edge_types: edgeTypes.values,
    environments: environments.values,
    clusters: clusters.values,
    nodes,
    edges,
    internal,
    throughput,
  };
  return { drawing, jsonParts: () => drawingJsonParts(drawing) };
}

/**
 * `JSON.stringify(drawing)`'s text in parts: the columns of `nodes` and `edges`
 * `DRAWING_SLICE_ITEMS` entries at a time, the other fields with the part after them.
 */
function* drawingJsonParts(drawing: GraphDrawing): Generator<string, void, undefined> {
  let pending = '{';
  let separator = '';
  for (const [key, value] of Object.entries(drawing)) {
    pending += `${separator}${JSON.stringify(key)}:`;
    separator = ',';
    if (key !== 'nodes' && key !== 'edges') {
      pending += JSON.stringify(value);
      continue;
    }
    pending += '{';
    let columnSeparator = '';
    for (const [column, values] of Object.entries(value as Record<string, unknown[]>)) {
      const prefix = `${pending}${columnSeparator}${JSON.stringify(column)}:`;
      pending = yield* jsonArrayParts(values, DRAWING_SLICE_ITEMS, prefix);
      columnSeparator = ',';
    }
    pending += '}';
  }
  yield `${pending}}`;
}
