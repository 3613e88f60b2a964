/**
 * The difference between a graph's current state and a new version of it, and the events that
 * record that difference. Extractions, imports and API calls all go through here, so that the store
 * only ever holds changes: a re-extraction that finds nothing new appends no node or edge event.
 * Pure: no I/O.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ChangeCounts, LineageEvent } from '../events.js';
import { edgeKey, type Edge, type EdgeKey, type LineageGraph, type Node } from './model.js';

/** Read access to a graph's current state (the projection implements it). */
export interface GraphReader {
  getNode(id: string): Node | undefined;
  getEdge(key: string): Edge | undefined;
  nodes(): Iterable<Node>;
  edges(): Iterable<Edge>;
}

/** What changes between two states of a graph. Changed items carry their whole new state. */
export interface GraphChanges {
  nodesAdded: Node[];
  nodesChanged: Node[];
  nodesRemoved: string[];
  edgesAdded: Edge[];
  edgesChanged: Edge[];
  edgesRemoved: EdgeKey[];
}

/**
 * What `DiffOptions.resolve` returns: the version to record, and the nodes outside the scope that it
 * replaces (e.g. an extraction's stand-ins for nodes it now brings), removed whatever the mode.
 */
export interface Resolution {
  graph: LineageGraph;
  /** Ids of current nodes to remove although `scope` does not hold for them; their edges go too. */
  replaced?: readonly string[];
}

/** How `diffGraph` compares: what may be removed, and how the new version is first resolved. */
export interface DiffOptions {
  /**
   * `merge` upserts the new nodes and edges and removes nothing; `replace` also removes what the new
   * graph no longer has (limited to `scope` when given).
   */
  mode: 'merge' | 'replace';
  /**
   * In `replace` mode, only nodes for which this holds may be removed, and only edges touching such a
   * node. An extraction of environment A passes "node belongs to A" so that it leaves B alone.
   */
  scope?: (node: Node) => boolean;
  /**
   * In `replace` mode, which current edges the new version answers for: such an edge is removed when
   * the new version lacks it. Default: edges with an end in `scope`. An edge that loses an end (its
   * node removed) is removed whatever this says. Extractions pass "the node that reports the edge is
   * in scope" (`src/extraction/scopes.ts`).
   */
  ownsEdge?: (edge: Edge, current: GraphReader) => boolean;
  /**
   * Rewrites the new version against the current state before it is compared (in either mode), e.g.
   * to link references to nodes another writer recorded (`src/extraction/scopes.ts`). Called once
   * per decision, with the state the change is decided on; must be pure.
   */
  resolve?: (current: GraphReader, next: LineageGraph) => Resolution;
}

/** True when two nodes are the same in every field (a missing and a null `catalog_type` are equal). */
export function sameNode(a: Node, b: Node): boolean {
  return (
    a.id === b.id &&
    a.node_type === b.node_type &&
    a.system === b.system &&
    a.qualified_name === b.qualified_name &&
    a.display_name === b.display_name &&
    a.environment_id === b.environment_id &&
    a.cluster_id === b.cluster_id &&
    (a.catalog_type ?? null) === (b.catalog_type ?? null) &&
    isDeepStrictEqual(a.attributes, b.attributes)
  );
}

/** True when two edges have the same key and attributes. */
export function sameEdge(a: Edge, b: Edge): boolean {
  return (
    a.src_id === b.src_id &&
    a.edge_type === b.edge_type &&
    a.dst_id === b.dst_id &&
    isDeepStrictEqual(a.attributes, b.attributes)
  );
}

/** Computes the changes that turn `current` into `next` (see `DiffOptions`), in one go. */
export function diffGraph(current: GraphReader, given: LineageGraph, options: DiffOptions): GraphChanges {
  const steps = diffGraphSteps(current, given, options);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Items `diffGraphSteps` compares between two of its pauses. */
export const DIFF_SLICE_ITEMS = 2_000;

/**
 * `diffGraph` as a generator that pauses (yields) after every `DIFF_SLICE_ITEMS` items it compared,
 * and returns the changes: a caller on the event loop resumes it in slices so that a diff of 150,000
 * items does not hold the loop for its whole length (issue 23). The state read must not change
 * between slices, or the changes mix two states: the writers pause only where an append with the
 * state's expected revision follows.
 */
export function* diffGraphSteps(
  current: GraphReader,
  given: LineageGraph,
  options: DiffOptions,
): Generator<void, GraphChanges, void> {
  let compared = 0;
  const resolution: Resolution = options.resolve ? options.resolve(current, given) : { graph: given };
  const next = resolution.graph;
  const changes: GraphChanges = {
    nodesAdded: [],
    nodesChanged: [],
    nodesRemoved: [],
    edgesAdded: [],
    edgesChanged: [],
    edgesRemoved: [],
  };
  const nextNodeIds = new Set<string>();
  for (const node of next.nodes) {
    if (++compared % DIFF_SLICE_ITEMS === 0) yield;
    nextNodeIds.add(node.id);
    const existing = current.getNode(node.id);
    if (!existing) changes.nodesAdded.push(node);
    else if (!sameNode(existing, node)) changes.nodesChanged.push(node);
  }
  const nextEdgeKeys = new Set<string>();
  for (const edge of next.edges) {
    if (++compared % DIFF_SLICE_ITEMS === 0) yield;
    const key = edgeKey(edge);
    nextEdgeKeys.add(key);
    const existing = current.getEdge(key);
    if (!existing) changes.edgesAdded.push(edge);
    else if (!sameEdge(existing, edge)) changes.edgesChanged.push(edge);
  }
  const removed = new Set<string>();
  for (const id of resolution.replaced ?? []) {
    if (!nextNodeIds.has(id) && current.getNode(id) !== undefined) removed.add(id);
  }
  if (options.mode === 'replace') {
    const inScope = options.scope ?? (() => true);
    for (const node of current.nodes()) {
      if (++compared % DIFF_SLICE_ITEMS === 0) yield;
      if (!nextNodeIds.has(node.id) && inScope(node)) removed.add(node.id);
    }
  }
  changes.nodesRemoved.push(...removed);
  if (options.mode === 'replace' || removed.size > 0) {
    const owns = options.mode === 'replace' ? (options.ownsEdge ?? touchesScope(options.scope)) : () => false;
    for (const edge of current.edges()) {
      if (++compared % DIFF_SLICE_ITEMS === 0) yield;
      if (nextEdgeKeys.has(edgeKey(edge))) continue;
      if (removed.has(edge.src_id) || removed.has(edge.dst_id) || owns(edge, current))
        changes.edgesRemoved.push({ src_id: edge.src_id, dst_id: edge.dst_id, edge_type: edge.edge_type });
    }
  }
  return changes;
}

/** The default edge ownership of `replace` mode: an edge with an end in `scope` (every edge without one). */
function touchesScope(scope: ((node: Node) => boolean) | undefined): (edge: Edge, current: GraphReader) => boolean {
  if (!scope) return () => true;
  return (edge, current) =>
    [edge.src_id, edge.dst_id].some((id) => {
      const node = current.getNode(id);
      return node !== undefined && scope(node);
    });
}

/** The number of nodes and edges in each kind of change. */
export function countChanges(changes: GraphChanges): ChangeCounts {
  return {
    nodes_added: changes.nodesAdded.length,
    nodes_changed: changes.nodesChanged.length,
    nodes_removed: changes.nodesRemoved.length,
    edges_added: changes.edgesAdded.length,
    edges_changed: changes.edgesChanged.length,
    edges_removed: changes.edgesRemoved.length,
  };
}

/** True when there is nothing to record. */
export function isEmptyChange(changes: GraphChanges): boolean {
  return Object.values(countChanges(changes)).every((count) => count === 0);
}

/** Largest number of nodes or edges in one event, so that events stay small for every backend. */
export const MAX_ITEMS_PER_EVENT = 1000;

/**
 * Nodes or edges per event of a change `recordGraph` records (extractions, imports, API writes). A
 * serving process folds each event its store receives without letting its event loop run in
 * between (the event is the projector's unit); 1,000 items took 30 to 50 ms of its CPU on a loaded
 * machine during two large imports (issue 23), a quarter of that keeps other requests' wait to a few
 * milliseconds. The change is still one append with one correlation id: atomic, and one history
 * entry. The start-up import of a graph file (`importNewGraph`), folded before anything is served,
 * keeps `MAX_ITEMS_PER_EVENT`.
 */
export const RECORDED_ITEMS_PER_EVENT = 250;

/**
 * The events recording `changes` on graph `graphId`, in an order that keeps the graph consistent
 * after each one: edges removed, nodes removed, nodes added, nodes changed, edges added, edges changed.
 */
export function changeEvents(graphId: string, changes: GraphChanges, chunkSize = MAX_ITEMS_PER_EVENT): LineageEvent[] {
  const events: LineageEvent[] = [];
  for (const edges of chunks(changes.edgesRemoved, chunkSize))
    events.push({ type: 'EdgesRemoved', data: { graph_id: graphId, edges } });
  for (const nodeIds of chunks(changes.nodesRemoved, chunkSize)) {
    events.push({ type: 'NodesRemoved', data: { graph_id: graphId, node_ids: nodeIds } });
  }
  for (const nodes of chunks(changes.nodesAdded, chunkSize))
    events.push({ type: 'NodesAdded', data: { graph_id: graphId, nodes } });
  for (const nodes of chunks(changes.nodesChanged, chunkSize))
    events.push({ type: 'NodesChanged', data: { graph_id: graphId, nodes } });
  for (const edges of chunks(changes.edgesAdded, chunkSize))
    events.push({ type: 'EdgesAdded', data: { graph_id: graphId, edges } });
  for (const edges of chunks(changes.edgesChanged, chunkSize))
    events.push({ type: 'EdgesChanged', data: { graph_id: graphId, edges } });
  return events;
}

function* chunks<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let start = 0; start < items.length; start += size) yield items.slice(start, start + size);
}
