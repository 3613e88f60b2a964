/**
 * The graph projection: folds the events of every `graph-{graph_id}` stream into one resident graph
 * (`projections/residentGraph.ts`) per graph id, plus the graph's change history. It is the read
 * side of graphs: the API, the OpenLineage views and the catalogs' pushes read from it, never from
 * the store directly.
 *
 * `evolveGraph` is the fold, and only ever uses idempotent operations keyed by node id and edge key,
 * so that replaying an event twice changes nothing. Graphs "as of" a recent revision or time are
 * views of the live graph through the history index the projection feeds
 * (`projections/historyIndex.ts`); older ones are folded from the stream up to that point
 * (`foldGraphAsOf`), from its start or from the nearest snapshot before it (`projections/snapshots.ts`).
 */
import type { EventStore } from '../src/eventStore.js';
import { iterateStream } from '../src/eventStore.js';
import { NotFoundError, ValidationError } from '../src/errors.js';
import { decodeTrustedEvent, streams, type ChangeCounts, type StoredLineageEvent } from '../src/events.js';
import type { GraphReader } from '../src/graph/changes.js';
import type { Edge, LineageGraph, Node } from '../src/graph/model.js';
import { createTraversalIndexes, type TraversalIndex } from './traversal/index.js';
import { createHistoryIndex, type HistoryIndex } from './historyIndex.js';
import { ResidentGraph } from './residentGraph.js';

/** One recorded change of a graph: the events of one append (one correlation id). */
export interface GraphHistoryEntry {
  /** Revision of the graph stream after the change. */
  revision: number;
  /** ISO 8601 time the change was recorded. */
  time: string;
  /** `extraction`, `import`, `api`, `watcher`, ... (`unknown` when not recorded). */
  cause: string;
  actor: string | null;
  correlation_id: string | null;
  /** `created`, `changed` or `deleted`. */
  kind: 'created' | 'changed' | 'deleted';
  counts: ChangeCounts;
}

/** Everything known about one graph. */
export interface GraphState {
  graphId: string;
  name: string | null;
  description: string | null;
  /** ISO time of GraphCreated (null when the stream has no GraphCreated, e.g. folded mid-way). */
  createdAt: string | null;
  /** ISO time of the last event applied. */
  updatedAt: string | null;
  /** Stream revision of the last event applied (-1 before any). */
  revision: number;
  /** Global store position of the last event applied (0 before any): orders graphs by recency. */
  position: number;
  deleted: boolean;
  graph: ResidentGraph;
  /** The changes, oldest first; a state restored from a snapshot holds only those after it (`projections/snapshots.ts`). */
  history: GraphHistoryEntry[];
  /** Edges skipped on replay because an endpoint was missing (0 unless the stream is damaged). */
  skippedEdges: number;
}

/** An empty state for graph `graphId`. */
export function initialGraphState(graphId: string): GraphState {
  return {
    graphId,
    name: null,
    description: null,
    createdAt: null,
    updatedAt: null,
    revision: -1,
    position: 0,
    deleted: false,
    graph: new ResidentGraph(),
    history: [],
    skippedEdges: 0,
  };
}

const emptyCounts = (): ChangeCounts => ({
  nodes_added: 0,
  nodes_changed: 0,
  nodes_removed: 0,
  edges_added: 0,
  edges_changed: 0,
  edges_removed: 0,
});

/** True for the event types that belong to graph streams. */
export function isGraphEvent(
  event: StoredLineageEvent,
): event is Extract<StoredLineageEvent, { data: { graph_id: string } }> & StoredLineageEvent {
  switch (event.type) {
    case 'GraphCreated':
    case 'GraphDeleted':
    case 'NodesAdded':
    case 'NodesChanged':
    case 'NodesRemoved':
    case 'EdgesAdded':
    case 'EdgesChanged':
    case 'EdgesRemoved':
      return event.stream.startsWith('graph-');
    default:
      return false;
  }
}

/**
 * Applies one graph event to a graph's state, in place, and returns the state. Idempotent per event.
 * Events of other types, and events outside graph streams, are ignored (they add no history entry).
 */
export function evolveGraph(state: GraphState, event: StoredLineageEvent): GraphState {
  if (!isGraphEvent(event)) return state;
  const { graph } = state;
  const entry = historyEntryFor(state, event);
  switch (event.type) {
    case 'GraphCreated':
      state.name = event.data.name;
      state.description = event.data.description;
      state.createdAt = event.recorded_at;
      state.deleted = false;
      graph.clear();
      entry.kind = 'created';
      break;
    case 'GraphDeleted':
      state.deleted = true;
      graph.clear();
      entry.kind = 'deleted';
      break;
    case 'NodesAdded':
    case 'NodesChanged':
      for (const node of event.data.nodes) putNode(graph, node);
      entry.counts[event.type === 'NodesAdded' ? 'nodes_added' : 'nodes_changed'] += event.data.nodes.length;
      break;
    case 'NodesRemoved':
      for (const id of event.data.node_ids) graph.removeNode(id);
      entry.counts.nodes_removed += event.data.node_ids.length;
      break;
    case 'EdgesAdded':
    case 'EdgesChanged':
      for (const edge of event.data.edges) putEdge(state, edge);
      entry.counts[event.type === 'EdgesAdded' ? 'edges_added' : 'edges_changed'] += event.data.edges.length;
      break;
    case 'EdgesRemoved':
      for (const edge of event.data.edges) graph.removeEdge(edge);
      entry.counts.edges_removed += event.data.edges.length;
      break;
    default:
      return state;
  }
  state.revision = event.revision;
  state.position = event.position;
  state.updatedAt = event.recorded_at;
  entry.revision = event.revision;
  return state;
}

/**
 * How many distinct values `interned` keeps (systems, node and edge types, catalog types,
 * environment and cluster ids): beyond it, new values are kept as they come. About 100 bytes each.
 */
const MAX_INTERNED_VALUES = 50_000;
const internedValues = new Map<string, string>();

/**
 * One string object per distinct value of the fields nodes and edges repeat (resident form, issue
 * 16 item 2): every node decoded from an event has its own copy of `STREAM`, `TOPIC`, its
 * environment id and its cluster id otherwise.
 */
function interned<T extends string | null | undefined>(value: T): T {
  if (typeof value !== 'string') return value;
  const known = internedValues.get(value);
  if (known !== undefined) return known as T;
  if (internedValues.size < MAX_INTERNED_VALUES) internedValues.set(value, value);
  return value;
}

/**
 * The node as the projection keeps it: its repeated fields interned. Changes the node in place (its
 * values stay equal) and answers it.
 */
function residentNode(node: Node): Node {
  node.node_type = interned(node.node_type);
  node.system = interned(node.system);
  node.environment_id = interned(node.environment_id);
  node.cluster_id = interned(node.cluster_id);
  if (node.catalog_type !== undefined) node.catalog_type = interned(node.catalog_type);
  return node;
}

/**
 * Adds a node, or replaces it when it exists (keeping the id string its edges share:
 * `ResidentGraph.setNode`).
 */
function putNode(graph: ResidentGraph, given: Node): void {
  const node = residentNode(given);
  graph.setNode(node.id, node);
}

/**
 * Adds an edge, or replaces it when it exists, with its type interned (and its endpoints the very
 * strings its nodes are keyed by: `ResidentGraph.setEdge`). An edge with a missing endpoint is
 * skipped and counted.
 */
function putEdge(state: GraphState, edge: Edge): void {
  edge.edge_type = interned(edge.edge_type);
  if (!state.graph.setEdge(edge)) state.skippedEdges += 1;
}

/** The history entry an event belongs to: the last one when it has the same correlation id. */
function historyEntryFor(state: GraphState, event: StoredLineageEvent): GraphHistoryEntry {
  const correlationId = event.metadata.correlation_id ?? null;
  const last = state.history[state.history.length - 1];
  if (last && correlationId !== null && last.correlation_id === correlationId && last.kind !== 'deleted') return last;
  const entry: GraphHistoryEntry = {
    revision: event.revision,
    time: event.recorded_at,
    cause: event.metadata.cause ?? 'unknown',
    actor: event.metadata.actor ?? null,
    correlation_id: correlationId,
    kind: 'changed',
    counts: emptyCounts(),
  };
  state.history.push(entry);
  return entry;
}

/** A read-only view of a graph state for `diffGraph` and the API. */
export function graphReader(state: GraphState): GraphReader {
  const { graph } = state;
  return {
    getNode: (id) => graph.node(id),
    getEdge: (key) => graph.edge(key),
    nodes: () => graph.nodeValues(),
    edges: () => graph.edgeValues(),
  };
}

/** The graph as LineageGraph JSON (nodes and edges in insertion order). */
export function toLineageGraph(state: GraphState): LineageGraph {
  return { nodes: state.graph.nodeValues(), edges: state.graph.edgeValues() };
}

/** The projection of all graphs, with its checkpoint. */
export interface GraphProjection {
  /** Global position of the last event applied (0 before any). */
  readonly position: number;
  /** Applies one event (any type; non-graph events only advance the position). */
  apply(event: StoredLineageEvent): void;
  /** A live graph, or undefined when unknown or deleted. */
  get(graphId: string): GraphState | undefined;
  /** A graph including deleted ones (for history). */
  getIncludingDeleted(graphId: string): GraphState | undefined;
  /** Every live graph, most recently changed first. */
  list(): GraphState[];
  /** Forgets everything (before a rebuild). */
  reset(): void;
  /**
   * The traversal index of a live graph's current revision, when traversal indexes are enabled
   * (`GraphProjectionOptions.traversalIndexQuietMilliseconds`): the one already built, or (unless
   * `options.build` is false) one built now when the graph has not changed for the quiet period.
   * Undefined otherwise (indexes disabled, unknown graph, a graph that changed too recently, or not
   * built yet): walk the resident graph instead. Asking marks the graph as wanted, so that
   * `prepareTraversalIndexes` keeps it indexed from then on.
   */
  traversalIndex(graphId: string, options?: { build?: boolean }): TraversalIndex | undefined;
  /**
   * Works for about `milliseconds` on the traversal indexes of the graphs that have been asked for
   * and have been quiet long enough: advances their builds (in steps; a build whose graph changed
   * meanwhile is dropped).
   * Graphs nobody traverses are never indexed. Answers how many builds it completed, and whether
   * nothing is left to do for now. The runtime calls it in slices between requests
   * (`startTraversalIndexing`), so that no request waits for an index (requests ask with `build: false`).
   */
  prepareTraversalIndexes(milliseconds: number): { built: number; done: boolean };
  /**
   * The history index of every graph (`projections/historyIndex.ts`): `as_of` and diffs within the
   * recent versions, from memory. Undefined when disabled (`GraphProjectionOptions.historyIndexVersions`).
   */
  readonly history: HistoryIndex | undefined;
}

/** How a graph projection serves traversals. */
export interface GraphProjectionOptions {
  /**
   * Enables traversal indexes (`projections/traversal/`): a graph gets one once it has not
   * changed for this many milliseconds, and loses it at its next change. Unset: no indexes (the
   * commands that never traverse).
   */
  traversalIndexQuietMilliseconds?: number;
  /** Clock of the quiet period, in milliseconds since the epoch (default `Date.now`). */
  now?: () => number;
  /**
   * Enables the history index (`projections/historyIndex.ts`), keeping at most this many node and edge
   * versions per graph. Unset or 0: none (`as_of` and diffs read the snapshots and the store).
   */
  historyIndexVersions?: number;
}

/** Creates an empty graph projection. */
export function createGraphProjection(options: GraphProjectionOptions = {}): GraphProjection {
  const graphs = new Map<string, GraphState>();
  let position = 0;
  const indexes =
    options.traversalIndexQuietMilliseconds === undefined
      ? undefined
      : createTraversalIndexes({
          quietMilliseconds: options.traversalIndexQuietMilliseconds,
          now: options.now,
        });
  const history = options.historyIndexVersions
    ? createHistoryIndex({ maxVersions: options.historyIndexVersions })
    : undefined;
  return {
    get position() {
      return position;
    },
    history,
    apply(event) {
      if (isGraphEvent(event)) {
        const graphId = event.data.graph_id;
        let state = graphs.get(graphId);
        if (!state) {
          state = initialGraphState(graphId);
          graphs.set(graphId, state);
        }
        history?.before(state, event);
        evolveGraph(state, event);
        history?.after(state, event);
        indexes?.changed(graphId);
      }
      position = event.position;
    },
    get(graphId) {
      const state = graphs.get(graphId);
      return state && !state.deleted ? state : undefined;
    },
    getIncludingDeleted(graphId) {
      return graphs.get(graphId);
    },
    list() {
      return [...graphs.values()].filter((state) => !state.deleted).sort((a, b) => b.position - a.position);
    },
    reset() {
      graphs.clear();
      indexes?.reset();
      history?.reset();
      position = 0;
    },
    traversalIndex(graphId, options = {}) {
      const state = graphs.get(graphId);
      return state && indexes ? indexes.get(state, options.build ?? true) : undefined;
    },
    prepareTraversalIndexes(milliseconds) {
      return indexes ? indexes.prepare(graphs, milliseconds) : { built: 0, done: true };
    },
  };
}

/** A point in a graph's history: a stream revision, or an ISO 8601 time. */
export type AsOf = { revision: number } | { time: string };

/**
 * Parses an `as_of` value: an integer is a revision, anything else must be an ISO 8601 time.
 * @throws ValidationError when it is neither.
 */
export function parseAsOf(value: string): AsOf {
  if (/^-?\d+$/.test(value)) {
    const revision = Number(value);
    if (revision < 0) throw new ValidationError(`as_of revision must be 0 or more, got ${value}`);
    return { revision };
  }
  const time = Date.parse(value);
  if (Number.isNaN(time) || !/^\d{4}-\d{2}-\d{2}/.test(value)) {
    throw new ValidationError(`as_of must be a stream revision (an integer) or an ISO 8601 time, got "${value}"`);
  }
  return { time: new Date(time).toISOString() };
}

/** How `foldGraphAsOf` starts and what it reports while it folds. */
export interface FoldAsOfOptions {
  /**
   * The state to continue from (taken over and changed in place), e.g. one restored from a snapshot
   * (`projections/snapshots.ts`): only the events after its revision are read. Default: the empty state.
   */
  from?: GraphState;
  /** Called with each event just before it is applied (the state still as it was). */
  before?: (state: GraphState, event: StoredLineageEvent) => void;
  /** Called with each event just after it is applied. */
  after?: (state: GraphState, event: StoredLineageEvent) => void;
}

/**
 * Folds a graph's stream from the store up to a revision (inclusive) or a time (the events up to the
 * first one recorded after it), from its start or from `options.from`. This is the fold from the
 * start that snapshots shortcut (`readGraphAsOf` in `projections/snapshots.ts`).
 * @throws NotFoundError when the graph has no events at or before that point.
 */
export async function foldGraphAsOf(
  store: EventStore,
  graphId: string,
  asOf: AsOf,
  options: FoldAsOfOptions = {},
): Promise<GraphState> {
  const state = options.from ?? initialGraphState(graphId);
  const toRevision = 'revision' in asOf ? asOf.revision : undefined;
  const limit = 'time' in asOf ? Date.parse(asOf.time) : Number.POSITIVE_INFINITY;
  if (toRevision === undefined || toRevision > state.revision) {
    for await (const recorded of iterateStream(store, streams.graph(graphId), {
      fromRevision: state.revision + 1,
      ...(toRevision === undefined ? {} : { toRevision }),
    })) {
      if (Date.parse(recorded.recorded_at) > limit) break;
      const event = decodeTrustedEvent(recorded);
      options.before?.(state, event);
      evolveGraph(state, event);
      options.after?.(state, event);
    }
  }
  if (state.revision < 0) {
    const point = 'revision' in asOf ? `revision ${asOf.revision}` : asOf.time;
    throw new NotFoundError(`graph "${graphId}" did not exist as of ${point}`);
  }
  return state;
}

/** The graph projection as the write side's state source (`src/graphCommands.ts`). */
export function graphStateSource(
  projection: GraphProjection,
  projector: { waitFor(position: number): Promise<void> },
  store: EventStore,
): import('../src/graphCommands.js').GraphStateSource {
  return {
    snapshot(graphId) {
      const state = projection.getIncludingDeleted(graphId);
      return state ? { revision: state.revision, deleted: state.deleted, reader: graphReader(state) } : undefined;
    },
    waitFor: (position) => projector.waitFor(position),
    catchUp: async () => projector.waitFor(await store.headPosition()),
  };
}
