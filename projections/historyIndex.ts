/**
 * The history index: per live graph, in memory, every version of every node and edge changed after
 * the graph's **base** (the earliest point the index keeps), so that a graph `as_of` a past revision
 * or time, and a diff between two points, are answered from the live graph without reading the store
 * (docs/storage.md, "History index"; docs/architecture.md, "Snapshots").
 *
 * - **What is kept.** For each node and edge changed after the base, a chain of versions: its value
 *   at the base, then `(revision, value or removed)` after each event that touched it; per event of
 *   the stream, its position, `recorded_at` and the latest `recorded_at` so far; the graph's own
 *   fields (name, description, creation time, deleted, skipped edges) each time they change; and the
 *   nodes and edges present at the base in their order (their values: no key of theirs). A node or
 *   edge no event touched since the base has the same value at every point of the window: the live
 *   graph's.
 * - **Not the creation, nor the filling of an empty graph.** The write that creates a graph (its
 *   `GraphCreated` and the rest of that append: an import, a first extraction), and a write that
 *   starts on a graph with no node (an import into a graph created empty, a first extraction into
 *   it, a graph emptied and filled again) keep no versions: the base is the end of that write, so
 *   that a 100,000-node import costs the index only one array slot per node and edge present at its
 *   base, and its fold no work per item (issue 23: the index took more of an import's fold than the
 *   graph itself). Points inside or before it answer `undefined`, like points before a moved base:
 *   the graph there comes from the snapshots and the store, and a diff across it from the events
 *   between its two points.
 * - **`as_of(R)`** is a read view (`GraphView`): the live graph with each changed entity replaced by
 *   its version at R. Nodes and edges are listed in the order the fold from the start gives
 *   (the order in which they were last added): those present since the base without a break in the
 *   base's order, then the others in the order they were last added.
 * - **Diffs** visit only the entities with a version between their two points (found in the log of
 *   versions, or, when the log between them is longer than the number of changed entities, among the
 *   chains), so their cost follows the change.
 * - **Bounded.** A graph keeps at most `maxVersions` versions (`DEFAULT_HISTORY_INDEX_VERSIONS`); past
 *   that, its base moves forward to keep the newest three quarters: at once, unless a view was handed
 *   out in this macrotask (then in a later one, so that the view stays valid). Points before the base
 *   answer `undefined`: the caller falls back to the snapshots (`projections/snapshots.ts`).
 * - **Fed by the projection.** `createGraphProjection` (`projections/graphProjection.ts`) calls
 *   `before` and `after` around every graph event it applies, live or while catching up, in stream
 *   order, whichever process appended it.
 */
import type { StoredLineageEvent } from '../src/events.js';
import type { GraphReader } from '../src/graph/changes.js';
import { sameEdge, sameNode } from '../src/graph/changes.js';
import type { Edge, EdgeKey, Node } from '../src/graph/model.js';
import { graphReader, type AsOf, type GraphState } from './graphProjection.js';
import { ResidentGraph } from './residentGraph.js';
import {
  edgeLabel,
  emptyChanges,
  forEachTouched,
  sortChanges,
  type DiffEnd,
  type GraphStateDiff,
} from './snapshots.js';

/** Versions (node and edge values after an event) a graph keeps in its history index, by default. */
export const DEFAULT_HISTORY_INDEX_VERSIONS = 250_000;

/** How a history index is bounded. */
export interface HistoryIndexOptions {
  /** Most versions kept per graph (default `DEFAULT_HISTORY_INDEX_VERSIONS`); 0 keeps none. */
  maxVersions?: number;
}

/**
 * A graph at one point: the fields of its `GraphState` (all but the graph and its history), its nodes
 * and edges (a `GraphReader`), and their counts.
 */
export interface GraphView extends Omit<GraphState, 'graph' | 'history'>, GraphReader {
  nodeCount: number;
  edgeCount: number;
  /** Calls `callback` with every node, in the graph's order (the order in which they were last added). */
  forEachNode(callback: (node: Node) => void): void;
  /** Calls `callback` with every edge, in the graph's order. */
  forEachEdge(callback: (edge: Edge) => void): void;
  /** The graph of this point: the live one for now, one built on the first call for a past point. */
  graph(): ResidentGraph;
}

/** The history index of every graph of a projection. */
export interface HistoryIndex {
  /** Notes what `event` is about to change in `state` (called before it is applied). */
  before(state: GraphState, event: StoredLineageEvent): void;
  /** Records the versions `event` made (called after it is applied). */
  after(state: GraphState, event: StoredLineageEvent): void;
  /**
   * The graph at `asOf` as a read view, valid until the next macrotask (a later one may move the base);
   * `null` when the graph did not exist yet at that point; `undefined` when the point is before the
   * graph's base (or the graph is unknown): ask the snapshots.
   */
  view(state: GraphState, asOf: AsOf): GraphView | null | undefined;
  /**
   * What changed between two points, as `diffGraphAsOf` answers it (`projections/snapshots.ts`);
   * `undefined` when either point is before the graph's base.
   */
  diff(state: GraphState, from: AsOf, to: AsOf): GraphStateDiff | undefined;
  /** The revision of a graph's base (-1: the window starts before its first event), or undefined. */
  baseRevision(graphId: string): number | undefined;
  /** What the index holds, summed over its graphs. */
  stats(): { graphs: number; versions: number; chains: number; events: number };
  /** Moves every base that is over the bound now (else done in a later macrotask). */
  trim(): void;
  /** Forgets everything. */
  reset(): void;
}

/** The `seq` of a version present since the base without a break (listed in the base's order). */
const SINCE_BASE = -1;

/**
 * One entity's versions, flat: `[revision, value, seq]` triples, the first at the base's revision.
 * `seq` orders the entities added after the base (the last add wins); `SINCE_BASE` for one present
 * since the base; unused (0) when the value is null (removed).
 */
type Chain = Array<number | Node | Edge | null>;

/** The graph's own fields after an event. */
interface GraphFields {
  name: string | null;
  description: string | null;
  createdAt: string | null;
  deleted: boolean;
  skippedEdges: number;
}

/** One graph's window. Per-event arrays are indexed by `revision - baseRevision - 1`. */
interface Window {
  graphId: string;
  baseRevision: number;
  basePosition: number;
  baseTime: string | null;
  /** Latest `recorded_at` (milliseconds) of the events up to the base; NaN when not seen. */
  baseMaxTime: number;
  baseNodeCount: number;
  baseEdgeCount: number;
  /** The nodes and edges present at the base, in order (the live values until changed). */
  baseNodeValues: Node[];
  baseEdgeValues: Edge[];
  /**
   * The id or edge key of each base value that has a chain, by the value itself (a base entry is
   * found by identity: the window keeps no key of the others, 300,000 strings on the bench's graph).
   */
  baseNodeKeys: Map<Node, string>;
  baseEdgeKeys: Map<Edge, string>;
  nodes: Map<string, Chain>;
  edges: Map<string, Chain>;
  positions: number[];
  times: string[];
  maxTimes: number[];
  nodeCounts: number[];
  edgeCounts: number[];
  /** The graph's fields from the base on, each at the revision it took effect. */
  fieldRevisions: number[];
  fields: GraphFields[];
  /** The log of versions in order: revision, key, whether an edge. */
  logRevisions: number[];
  logKeys: string[];
  logEdges: boolean[];
  nextSeq: number;
  /** Bumped when the base moves: a view of an older epoch is no longer valid. */
  epoch: number;
  /** The nodes and edges the event being applied touches (between `before` and `after`). */
  pendingNodes: Pending<string>;
  pendingEdges: Pending<EdgeKey>;
}

/**
 * The keys an event touches, noted before it is applied, in order (a key may come more than once):
 * each key's chain when it has one, else its value before the event (its chain is opened only when
 * the event changes it), and what finds its value in the graph (the node id, or the edge's endpoints
 * and type, so that no key is taken apart again).
 */
interface Pending<P> {
  keys: string[];
  parts: P[];
  chains: Array<Chain | undefined>;
  previous: Array<Node | Edge | null>;
}

const emptyPending = <P>(): Pending<P> => ({ keys: [], parts: [], chains: [], previous: [] });

function clearPending<P>(pending: Pending<P>): void {
  pending.keys.length = 0;
  pending.parts.length = 0;
  pending.chains.length = 0;
  pending.previous.length = 0;
}

const fieldsOf = (state: GraphState): GraphFields => ({
  name: state.name,
  description: state.description,
  createdAt: state.createdAt,
  deleted: state.deleted,
  skippedEdges: state.skippedEdges,
});

const sameFields = (a: GraphFields, b: GraphFields) =>
  a.name === b.name &&
  a.description === b.description &&
  a.createdAt === b.createdAt &&
  a.deleted === b.deleted &&
  a.skippedEdges === b.skippedEdges;

/** A window whose base is `state` as it is now (empty when the stream has no event yet). */
function openWindow(state: GraphState): Window {
  const seen = state.revision >= 0;
  return {
    graphId: state.graphId,
    baseRevision: state.revision,
    basePosition: state.position,
    baseTime: state.updatedAt,
    baseMaxTime: seen ? Number.NaN : Number.NEGATIVE_INFINITY,
    baseNodeCount: state.graph.order,
    baseEdgeCount: state.graph.size,
    ...baseEntries(state),
    nodes: new Map(),
    edges: new Map(),
    positions: [],
    times: [],
    maxTimes: [],
    nodeCounts: [],
    edgeCounts: [],
    fieldRevisions: [state.revision],
    fields: [fieldsOf(state)],
    logRevisions: [],
    logKeys: [],
    logEdges: [],
    nextSeq: 0,
    epoch: 0,
    pendingNodes: emptyPending(),
    pendingEdges: emptyPending(),
  };
}

/** The nodes and edges of a state, in the graph's order. */
function baseEntries(
  state: GraphState,
): Pick<Window, 'baseNodeValues' | 'baseEdgeValues' | 'baseNodeKeys' | 'baseEdgeKeys'> {
  const present = state.revision >= 0;
  return {
    baseNodeValues: present ? state.graph.nodeValues() : [],
    baseEdgeValues: present ? state.graph.edgeValues() : [],
    baseNodeKeys: new Map(),
    baseEdgeKeys: new Map(),
  };
}

const headOf = (window: Window) => window.baseRevision + window.positions.length;

/** Index (of the triple) of the version of `chain` at `revision`: the last at or before it. */
function versionAt(chain: Chain, revision: number): number {
  let low = 0;
  let high = chain.length / 3 - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((chain[middle * 3] as number) <= revision) low = middle;
    else high = middle - 1;
  }
  return low * 3;
}

/** The index of the first element of the ascending `values` above `limit` (`values.length` when none). */
function firstAbove(values: number[], limit: number): number {
  let [low, high] = [0, values.length];
  while (low < high) {
    const middle = (low + high) >> 1;
    if (values[middle]! > limit) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** The revision `asOf` names within the window (clamped to its head); undefined when before the base. */
function resolveRevision(window: Window, asOf: AsOf): number | undefined {
  if ('revision' in asOf) {
    const revision = Math.min(asOf.revision, headOf(window));
    return revision < window.baseRevision ? undefined : revision;
  }
  // The fold stops before the first event recorded after the time (recorded_at may go backwards).
  const limit = Date.parse(asOf.time);
  if (!(window.baseMaxTime <= limit)) return undefined;
  return window.baseRevision + firstAbove(window.maxTimes, limit);
}

/**
 * Whether `event` continues the write (one append, one correlation id) the graph's last history entry
 * records: `historyEntryFor` in `projections/graphProjection.ts` groups events the same way.
 */
function continuesLastWrite(state: GraphState, event: StoredLineageEvent): boolean {
  const last = state.history[state.history.length - 1];
  const correlationId = event.metadata.correlation_id ?? null;
  return (
    last !== undefined && correlationId !== null && last.correlation_id === correlationId && last.kind !== 'deleted'
  );
}

/**
 * Whether `event` belongs to the write that creates the graph: its `GraphCreated`, or a later event of
 * the same append (same correlation id) while that is still the graph's last history entry. The index
 * keeps no versions of that write (an import's or a first extraction's hundreds of thousands of
 * nodes and edges): its window opens after it, and points inside it come from the snapshots.
 */
function partOfCreation(state: GraphState, event: StoredLineageEvent): boolean {
  if (event.type === 'GraphCreated') return true;
  return continuesLastWrite(state, event) && state.history[state.history.length - 1]!.kind === 'created';
}

/**
 * Notes the keys `event` may change: each one's chain, or its value now when it has none (untouched
 * since the base: its value now is its value there).
 */
function noteTouched(window: Window, state: GraphState, event: StoredLineageEvent): void {
  const { graph } = state;
  const { pendingNodes, pendingEdges, nodes, edges } = window;
  const node = (id: string) => {
    const chain = nodes.get(id);
    pendingNodes.keys.push(id);
    pendingNodes.parts.push(id);
    pendingNodes.chains.push(chain);
    pendingNodes.previous.push(chain === undefined ? (graph.node(id) ?? null) : null);
  };
  const edge = (key: string, parts: EdgeKey) => {
    const chain = edges.get(key);
    pendingEdges.keys.push(key);
    pendingEdges.parts.push(parts);
    pendingEdges.chains.push(chain);
    pendingEdges.previous.push(chain === undefined ? (graph.edgeOf(parts) ?? null) : null);
  };
  forEachTouched(state, event, node, edge);
}

/**
 * Makes V8 keep `key` as one string. An edge key is built by concatenation (`edgeKey`), which V8 keeps
 * as a tree of its parts, the event's own copies of the two ids among them, until something reads its
 * characters; a Map's lookup does not. A key the window keeps would hold on to those copies (about
 * 100 bytes per edge, 15 MB on the import bench's 111,111 edges), which the resident graph drops.
 */
function flatten(key: string): void {
  key.charCodeAt(0);
}

/**
 * Appends the version after the event of each pending key whose value changed (as `read` finds it
 * now), opening the chain of a key that had none with its value before; answers how many. A chain
 * opened here is an array of exactly six slots (most chains never grow further).
 */
function recordVersions<P>(
  window: Window,
  target: {
    pending: Pending<P>;
    chains: Map<string, Chain>;
    baseKeys: Map<Node | Edge, string>;
    edges: boolean;
    read: (parts: P) => Node | Edge | null;
  },
  revision: number,
): number {
  const { pending, chains } = target;
  let appended = 0;
  for (let index = 0; index < pending.keys.length; index += 1) {
    const key = pending.keys[index]!;
    const value = target.read(pending.parts[index]!);
    // A key noted twice in one event has its chain from its first time once that changed it.
    const chain = pending.chains[index] ?? chains.get(key);
    if (chain === undefined) {
      const previous = pending.previous[index]!;
      if (value === previous) continue;
      const seq = value === null ? 0 : previous === null ? window.nextSeq++ : SINCE_BASE;
      flatten(key);
      chains.set(key, [window.baseRevision, previous, SINCE_BASE, revision, value, seq]);
      if (previous !== null) target.baseKeys.set(previous, key);
    } else {
      const last = chain.length - 3;
      const previous = chain[last + 1] as Node | Edge | null;
      if (value === previous) continue;
      const seq = value === null ? 0 : previous === null ? window.nextSeq++ : (chain[last + 2] as number);
      chain.push(revision, value, seq);
    }
    window.logRevisions.push(revision);
    window.logKeys.push(key);
    window.logEdges.push(target.edges);
    appended += 1;
  }
  clearPending(pending);
  return appended;
}

/** Records the event's versions, its position and time, the counts and the graph's fields after it. */
function recordEvent(window: Window, state: GraphState, event: StoredLineageEvent): void {
  const { graph } = state;
  const { revision } = event;
  const readNode = (id: string) => graph.node(id) ?? null;
  const readEdge = (parts: EdgeKey) => graph.edgeOf(parts) ?? null;
  recordVersions(
    window,
    { pending: window.pendingNodes, chains: window.nodes, baseKeys: window.baseNodeKeys, edges: false, read: readNode },
    revision,
  );
  recordVersions(
    window,
    { pending: window.pendingEdges, chains: window.edges, baseKeys: window.baseEdgeKeys, edges: true, read: readEdge },
    revision,
  );
  const previousMax = window.maxTimes.length > 0 ? window.maxTimes[window.maxTimes.length - 1]! : window.baseMaxTime;
  window.positions.push(event.position);
  window.times.push(event.recorded_at);
  window.maxTimes.push(Math.max(previousMax, Date.parse(event.recorded_at)));
  window.nodeCounts.push(graph.order);
  window.edgeCounts.push(graph.size);
  const fields = fieldsOf(state);
  if (!sameFields(fields, window.fields[window.fields.length - 1]!)) {
    window.fieldRevisions.push(revision);
    window.fields.push(fields);
  }
}

/**
 * Everything present at `revision`, in the fold's order, each given to `visit`: first the base's
 * entries still present since the base (an untouched one with its base value, which is the live
 * one), then the others by `seq`. A callback rather than a generator: a view lists 40,000 entities of
 * the history bench's graph, and resuming a generator for each cost about a fifth of an `as_of`.
 */
function forEachPresent<V extends Node | Edge>(
  base: { values: V[]; keys: Map<V, string> },
  chains: Map<string, Chain>,
  revision: number,
  visit: (value: V) => void,
): void {
  const { values: baseValues, keys: baseKeys } = base;
  for (let index = 0; index < baseValues.length; index += 1) {
    const value = baseValues[index]!;
    const key = baseKeys.size === 0 ? undefined : baseKeys.get(value);
    if (key === undefined) {
      visit(value);
      continue;
    }
    const chain = chains.get(key)!;
    const at = versionAt(chain, revision);
    if (chain[at + 1] !== null && chain[at + 2] === SINCE_BASE) visit(chain[at + 1] as V);
  }
  const values: V[] = [];
  const seqs: number[] = [];
  let ascending = true;
  for (const chain of chains.values()) {
    const at = versionAt(chain, revision);
    if (chain[at + 1] === null || chain[at + 2] === SINCE_BASE) continue;
    if (seqs.length > 0 && (chain[at + 2] as number) < seqs[seqs.length - 1]!) ascending = false;
    values.push(chain[at + 1] as V);
    seqs.push(chain[at + 2] as number);
  }
  // Chains are mostly created in the order their entities were added: then no sort is needed.
  if (ascending) for (let index = 0; index < values.length; index += 1) visit(values[index]!);
  else for (const index of orderBySeq(seqs)) visit(values[index]!);
}

/** The values `forEachPresent` visits, in its order. */
function valuesPresent<V extends Node | Edge>(
  base: { values: V[]; keys: Map<V, string> },
  chains: Map<string, Chain>,
  revision: number,
): V[] {
  const values: V[] = [];
  forEachPresent(base, chains, revision, (value) => values.push(value));
  return values;
}

/** The base of a window's nodes, as `forEachPresent` reads it. */
const nodeBase = (window: Window) => ({ values: window.baseNodeValues, keys: window.baseNodeKeys });

/** The base of a window's edges, as `forEachPresent` reads it. */
const edgeBase = (window: Window) => ({ values: window.baseEdgeValues, keys: window.baseEdgeKeys });

/** The indexes of `seqs` (distinct, at most 2^31) in ascending order of their values. */
function orderBySeq(seqs: number[]): Iterable<number> {
  const shift = 2 ** 22;
  if (seqs.length >= shift) return seqs.map((_, index) => index).sort((a, b) => seqs[a]! - seqs[b]!);
  // Sorting packed numbers in a typed array needs no comparator: several times faster than one.
  const packed = new Float64Array(seqs.length);
  for (let index = 0; index < seqs.length; index += 1) packed[index] = seqs[index]! * shift + index;
  packed.sort();
  const order = new Uint32Array(seqs.length);
  for (let index = 0; index < seqs.length; index += 1) order[index] = packed[index]! % shift;
  return order;
}

/** The graph's fields in force at `revision`. */
function fieldsAt(window: Window, revision: number): GraphFields {
  return window.fields[firstAbove(window.fieldRevisions, revision) - 1]!;
}

/** `values[revision]` of a per-event array, or the base's value at the base. */
function perEvent<T>(window: Window, values: T[], atBase: T, revision: number): T {
  return revision === window.baseRevision ? atBase : values[revision - window.baseRevision - 1]!;
}

/** One end of a diff at a revision of the window (-1 and null before the graph's first event). */
function diffEnd(window: Window, revision: number): DiffEnd {
  return revision < 0
    ? { revision: -1, time: null }
    : { revision, time: perEvent(window, window.times, window.baseTime, revision) };
}

/** The read view of `state`'s graph at `revision` of its window (at or after the base, at most its head). */
function viewAt(window: Window, state: GraphState, revision: number): GraphView {
  const { epoch } = window;
  const live = () => {
    if (window.epoch !== epoch) throw new Error(`history view of graph "${window.graphId}" used after its base moved`);
    return state.graph;
  };
  const valueAt = <V extends Node | Edge>(chains: Map<string, Chain>, key: string, fromLive: () => V | undefined) => {
    const chain = chains.get(key);
    return chain ? ((chain[versionAt(chain, revision) + 1] as V | null) ?? undefined) : fromLive();
  };
  let built: ResidentGraph | undefined;
  const view: GraphView = {
    graphId: window.graphId,
    ...fieldsAt(window, revision),
    updatedAt: perEvent(window, window.times, window.baseTime, revision),
    revision,
    position: perEvent(window, window.positions, window.basePosition, revision),
    nodeCount: perEvent(window, window.nodeCounts, window.baseNodeCount, revision),
    edgeCount: perEvent(window, window.edgeCounts, window.baseEdgeCount, revision),
    getNode: (id) => valueAt<Node>(window.nodes, id, () => live().node(id)),
    getEdge: (key) => valueAt<Edge>(window.edges, key, () => live().edge(key)),
    nodes: () => {
      live();
      return valuesPresent(nodeBase(window), window.nodes, revision);
    },
    edges: () => {
      live();
      return valuesPresent(edgeBase(window), window.edges, revision);
    },
    forEachNode: (callback) => {
      live();
      forEachPresent(nodeBase(window), window.nodes, revision, callback);
    },
    forEachEdge: (callback) => {
      live();
      forEachPresent(edgeBase(window), window.edges, revision, callback);
    },
    graph: () => (built ??= residentGraphOf(view)),
  };
  return view;
}

/** The view of a state as it is (the live graph, or one folded from the store): no copy. */
export function viewOfState(state: GraphState): GraphView {
  const { graph } = state;
  return {
    graphId: state.graphId,
    name: state.name,
    description: state.description,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    revision: state.revision,
    position: state.position,
    deleted: state.deleted,
    skippedEdges: state.skippedEdges,
    nodeCount: graph.order,
    edgeCount: graph.size,
    ...graphReader(state),
    forEachNode: (callback) => graph.forEachNode(callback),
    forEachEdge: (callback) => graph.forEachEdge(callback),
    graph: () => graph,
  };
}

/**
 * A `GraphState` of a view, for the readers that need a resident graph (traversals `as_of`,
 * exports): its graph is the view's `graph()` (built for a past point), its history empty.
 */
export function stateOfView(view: GraphView): GraphState {
  return {
    graphId: view.graphId,
    name: view.name,
    description: view.description,
    createdAt: view.createdAt,
    updatedAt: view.updatedAt,
    revision: view.revision,
    position: view.position,
    deleted: view.deleted,
    graph: view.graph(),
    history: [],
    skippedEdges: view.skippedEdges,
  };
}

/** A graph holding a view's nodes and edges, in its order. */
export function residentGraphOf(view: GraphReader): ResidentGraph {
  const graph = new ResidentGraph();
  for (const node of view.nodes()) graph.setNode(node.id, node);
  for (const edge of view.edges()) graph.setEdge(edge);
  return graph;
}

/** The changes from `from` to `to` (revisions of the window) among the entities with a version between them. */
function windowChanges(window: Window, from: number, to: number): Pick<GraphStateDiff, 'nodes' | 'edges'> {
  const result = emptyChanges();
  const [low, high] = from <= to ? [from, to] : [to, from];
  if (low === high) return result;
  const [start, end] = [firstAbove(window.logRevisions, low), firstAbove(window.logRevisions, high)];
  // The chains with a version between the two points: those the log names there when it is the
  // shorter way, else every chain (iterated as the map's values: no lookup per key).
  let nodeChains: Iterable<Chain> = window.nodes.values();
  let edgeChains: Iterable<Chain> = window.edges.values();
  if (end - start <= window.nodes.size + window.edges.size) {
    const [nodes, edges] = [new Set<Chain>(), new Set<Chain>()];
    for (let at = start; at < end; at += 1) {
      const key = window.logKeys[at]!;
      if (window.logEdges[at]) edges.add(window.edges.get(key)!);
      else nodes.add(window.nodes.get(key)!);
    }
    [nodeChains, edgeChains] = [nodes, edges];
  }
  const compare = <V extends Node | Edge>(chains: Iterable<Chain>, add: (old: V | null, now: V | null) => void) => {
    for (const chain of chains) {
      const before = versionAt(chain, from);
      const after = versionAt(chain, to);
      if (before !== after) add(chain[before + 1] as V | null, chain[after + 1] as V | null);
    }
  };
  compare<Node>(nodeChains, (old, now) => {
    if (!old && now) result.nodes.added.push(now);
    else if (old && !now) result.nodes.removed.push(old);
    else if (old && now && !sameNode(old, now)) result.nodes.changed.push({ id: now.id, before: old, after: now });
  });
  compare<Edge>(edgeChains, (old, now) => {
    if (!old && now) result.edges.added.push(now);
    else if (old && !now) result.edges.removed.push(old);
    else if (old && now && !sameEdge(old, now))
      result.edges.changed.push({ id: edgeLabel(now), before: old, after: now });
  });
  return sortChanges(result);
}

/** A chain as seen from a base at `revision`: its value there, then its later versions (undefined when none). */
function rebasedChain(chain: Chain, revision: number): Chain | undefined {
  const at = versionAt(chain, revision);
  if (at + 3 >= chain.length) return undefined;
  const value = chain[at + 1] as Node | Edge | null;
  const rebased: Chain = [revision, value, SINCE_BASE];
  let [previous, seq] = [value, SINCE_BASE];
  for (let index = at + 3; index < chain.length; index += 3) {
    const next = chain[index + 1] as Node | Edge | null;
    // A version present since the new base without a break is listed in the base's order.
    if (next !== null && previous !== null) rebased.push(chain[index]!, next, seq);
    else rebased.push(chain[index]!, next, (seq = chain[index + 2] as number));
    previous = next;
  }
  return rebased;
}

/**
 * Rebases every chain at `revision` (dropping those with no version after it), and answers the keys
 * of the values present at the new base that keep a chain, by value.
 */
function rebaseChains<V extends Node | Edge>(chains: Map<string, Chain>, revision: number): Map<V, string> {
  const keys = new Map<V, string>();
  for (const [key, chain] of chains) {
    const rebased = rebasedChain(chain, revision);
    if (!rebased) {
      chains.delete(key);
      continue;
    }
    chains.set(key, rebased);
    if (rebased[1] !== null) keys.set(rebased[1] as V, key);
  }
  return keys;
}

/** Moves a window's base forward to `revision` (at most its head), dropping the versions up to it. */
function moveBase(window: Window, revision: number): void {
  const dropped = revision - window.baseRevision;
  if (dropped <= 0) return;
  window.baseNodeValues = valuesPresent(nodeBase(window), window.nodes, revision);
  window.baseEdgeValues = valuesPresent(edgeBase(window), window.edges, revision);
  window.baseNodeKeys = rebaseChains(window.nodes, revision);
  window.baseEdgeKeys = rebaseChains(window.edges, revision);
  const start = firstAbove(window.logRevisions, revision);
  window.logRevisions = window.logRevisions.slice(start);
  window.logKeys = window.logKeys.slice(start);
  window.logEdges = window.logEdges.slice(start);
  const fields = firstAbove(window.fieldRevisions, revision) - 1;
  window.fieldRevisions = [revision, ...window.fieldRevisions.slice(fields + 1)];
  window.fields = window.fields.slice(fields);
  window.basePosition = window.positions[dropped - 1]!;
  window.baseTime = window.times[dropped - 1]!;
  window.baseMaxTime = window.maxTimes[dropped - 1]!;
  window.baseNodeCount = window.nodeCounts[dropped - 1]!;
  window.baseEdgeCount = window.edgeCounts[dropped - 1]!;
  for (const values of [window.positions, window.times, window.maxTimes, window.nodeCounts, window.edgeCounts]) {
    values.splice(0, dropped);
  }
  window.baseRevision = revision;
  window.epoch += 1;
}

/**
 * Creates an empty history index bounded by `options.maxVersions` per graph. Fed by the graph
 * projection (`GraphProjectionOptions.historyIndexVersions` in `projections/graphProjection.ts`).
 */
export function createHistoryIndex(options: HistoryIndexOptions = {}): HistoryIndex {
  const maxVersions = options.maxVersions ?? DEFAULT_HISTORY_INDEX_VERSIONS;
  const windows = new Map<string, Window>();
  let trimScheduled = false;
  // Per graph, the correlation id of the write being applied when it started on a graph with no node
  // (it keeps no versions, like the creation).
  const fillings = new Map<string, string>();
  /** Whether `event` belongs to a write that started on a graph with no node (called before it is applied). */
  const partOfFilling = (state: GraphState, event: StoredLineageEvent) => {
    const correlationId = event.metadata.correlation_id ?? null;
    if (!continuesLastWrite(state, event)) {
      if (correlationId !== null && state.revision >= 0 && state.graph.order === 0)
        fillings.set(state.graphId, correlationId);
      else fillings.delete(state.graphId);
    }
    return correlationId !== null && fillings.get(state.graphId) === correlationId;
  };
  // Whether a view was handed out in this macrotask (it may still be read: the base must not move).
  let viewsOut = false;

  const trimWindow = (window: Window) => {
    if (window.logRevisions.length <= maxVersions) return;
    // Keep the newest three quarters of the bound, cut at an event's end.
    const cut = window.logRevisions.length - Math.floor((maxVersions * 3) / 4) - 1;
    moveBase(window, window.logRevisions[cut]!);
  };
  const trim = () => {
    trimScheduled = false;
    for (const window of windows.values()) trimWindow(window);
  };
  const windowOf = (state: GraphState) => windows.get(state.graphId);
  // The window of a graph at its head, opened there when it has none (at its first event, after its
  // creation, after a gap).
  const settledWindow = (state: GraphState) => {
    let window = windowOf(state);
    if (!window || headOf(window) !== state.revision) windows.set(state.graphId, (window = openWindow(state)));
    return window;
  };

  return {
    before(state, event) {
      const filling = partOfFilling(state, event);
      if (event.revision !== state.revision + 1 || partOfCreation(state, event) || filling) {
        // A gap (the projection holds a state this index cannot place), or the write that creates the
        // graph or fills it from empty, which keeps no versions: the window opens again after this event.
        windows.delete(state.graphId);
        return;
      }
      const window = settledWindow(state);
      clearPending(window.pendingNodes);
      clearPending(window.pendingEdges);
      noteTouched(window, state, event);
    },
    after(state, event) {
      const window = windowOf(state);
      if (!window || headOf(window) + 1 !== event.revision) return;
      recordEvent(window, state, event);
      if (window.logRevisions.length <= maxVersions) return;
      // At once when no view can be in use (a catch-up, an import: memory stays bounded while it
      // folds), else in a later macrotask.
      if (!viewsOut) trimWindow(window);
      else if (!trimScheduled) {
        trimScheduled = true;
        setImmediate(trim).unref();
      }
    },
    view(state, asOf) {
      const window = settledWindow(state);
      const revision = resolveRevision(window, asOf);
      if (revision === undefined) return undefined;
      if (revision < 0) return null;
      if (!viewsOut) {
        viewsOut = true;
        setImmediate(() => (viewsOut = false)).unref();
      }
      return viewAt(window, state, revision);
    },
    diff(state, from, to) {
      const window = settledWindow(state);
      const [start, end] = [resolveRevision(window, from), resolveRevision(window, to)];
      if (start === undefined || end === undefined) return undefined;
      return { from: diffEnd(window, start), to: diffEnd(window, end), ...windowChanges(window, start, end) };
    },
    baseRevision: (graphId) => windows.get(graphId)?.baseRevision,
    stats() {
      const stats = { graphs: windows.size, versions: 0, chains: 0, events: 0 };
      for (const window of windows.values()) {
        stats.versions += window.logRevisions.length;
        stats.chains += window.nodes.size + window.edges.size;
        stats.events += window.positions.length;
      }
      return stats;
    },
    trim,
    reset: () => {
      windows.clear();
      fillings.clear();
    },
  };
}
