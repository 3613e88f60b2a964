/**
 * Graph snapshots: the state of a graph's fold at a stream revision, kept in the store's snapshot
 * table (`EventStore.snapshots`, `src/eventStore.ts`) so that `as_of` reads and diffs fold from the
 * nearest snapshot before the point asked instead of from the stream's start. The API reads recent
 * points from the history index instead (`projections/historyIndex.ts`); snapshots serve the points
 * before its base, and processes whose index is off (`historyIndexVersions` 0).
 *
 * - **Derived, never required.** The events stay the only source of truth. A snapshot that is
 *   missing, unreadable (its gzip checksum or JSON fails) or of another format is skipped: the read
 *   folds from the next older one, or from the start. Nothing here appends an event.
 * - **Where.** Snapshots are taken every `interval` events of a stream (default 1,000), at the
 *   revisions `interval - 1`, `2 * interval - 1`, ...: the same points in every process, and a
 *   snapshot's content is a function of the stream alone, so processes that take the same one write
 *   the same bytes and the store keeps the first (`SnapshotStore.put` is idempotent).
 * - **When.** An `as_of` read to a revision takes the last snapshot point it passes when the store
 *   lacks it (written in the background after the answer, one write at a time);
 *   `writeGraphSnapshots` takes every missing one of a stream; `followGraphSnapshots` takes them as
 *   the live projection reaches each point.
 * - **Format.** `GRAPH_SNAPSHOT_FORMAT` names the payload layout and the version of every graph event
 *   type, so a snapshot folded by code that read events differently is never used. The payload is
 *   gzip of one JSON object, `GraphSnapshotPayload`, documented in docs/storage.md.
 *
 * Diffs (`diffGraphAsOf`) replay only the events between their two points onto the `from` state,
 * noting the first value of every node and edge an event touches, and compare only those; a diff
 * across more than `interval` events compares two states restored from snapshots instead. Either
 * way its cost is bounded by the change or the graph, never by the length of the history.
 */
import { promisify } from 'node:util';
import { gunzipSync, gzip } from 'node:zlib';
import type { EventStore, SnapshotInfo } from '../src/eventStore.js';
import { NotFoundError } from '../src/errors.js';
import { CURRENT_VERSIONS, GRAPH_EVENT_TYPES, streams, type StoredLineageEvent } from '../src/events.js';
import { diffGraph, sameEdge, sameNode } from '../src/graph/changes.js';
import { edgeKey, type Edge, type EdgeKey, type Node } from '../src/graph/model.js';
import {
  foldGraphAsOf,
  graphReader,
  initialGraphState,
  isGraphEvent,
  toLineageGraph,
  type AsOf,
  type GraphState,
} from './graphProjection.js';

const gzipAsync = promisify(gzip);

/**
 * The format of the snapshots this code writes and reads: the payload layout (`graph-2`) and the
 * schema version of each graph event type. A snapshot of any other format is ignored (stale).
 */
export const GRAPH_SNAPSHOT_FORMAT = `graph-2;${GRAPH_EVENT_TYPES.map((type) => CURRENT_VERSIONS[type]).join('.')}`;

/**
 * Whether `format` is older than `GRAPH_SNAPSHOT_FORMAT`: an earlier payload layout, or the same one
 * with no event version newer than ours and one older. A format this code cannot order (a newer
 * build's, or a foreign one) is not older: several builds sharing a store never delete each other's.
 */
export function isOlderFormat(format: string): boolean {
  const parse = (value: string) => {
    const match = /^graph-(\d+);([\d.]+)$/.exec(value);
    return match ? { layout: Number(match[1]), versions: match[2]!.split('.').map(Number) } : undefined;
  };
  const [theirs, ours] = [parse(format), parse(GRAPH_SNAPSHOT_FORMAT)!];
  if (!theirs) return false;
  if (theirs.layout !== ours.layout) return theirs.layout < ours.layout;
  if (theirs.versions.length !== ours.versions.length) return false;
  const older = theirs.versions.some((version, at) => version < ours.versions[at]!);
  return older && theirs.versions.every((version, at) => version <= ours.versions[at]!);
}

/** Events of a stream between two snapshots, by default. */
export const DEFAULT_SNAPSHOT_INTERVAL = 1000;

/** The snapshot key of a graph: its stream's name. */
export const graphSnapshotKey = (graphId: string): string => streams.graph(graphId);

/** The decoded payload of a graph snapshot (JSON, then gzip). Times are ISO 8601. */
export interface GraphSnapshotPayload {
  graph_id: string;
  name: string | null;
  description: string | null;
  created_at: string | null;
  updated_at: string | null;
  /** Revision and global position of the last event folded. */
  revision: number;
  position: number;
  deleted: boolean;
  skipped_edges: number;
  /** Every node, whole, in the graph's insertion order. */
  nodes: Node[];
  /**
   * Every edge in the graph's insertion order, as `[source, target, edge_type, attributes]` where
   * source and target are indexes into `nodes` (an edge is about a twelfth of its JSON object's size).
   */
  edges: Array<[number, number, Edge['edge_type'], Edge['attributes']]>;
}

/** How snapshots are used and taken. */
export interface SnapshotOptions {
  /** Events between snapshot points (default `DEFAULT_SNAPSHOT_INTERVAL`). */
  interval?: number;
  /** Take the snapshots a fold passes and the store lacks (default true). */
  write?: boolean;
  /** Receives the failure of a background snapshot write (default: ignored; the snapshot is just missing). */
  onWriteError?: (error: unknown) => void;
}

/** A state folded to a point, with the latest `recorded_at` of the events folded into it. */
export interface FoldedGraph {
  state: GraphState;
  /** ISO 8601, null before any event. */
  maxRecordedAt: string | null;
}

/** The snapshot payload of a state, in the graph's insertion order. Pure. */
export function snapshotPayload(state: GraphState): GraphSnapshotPayload {
  return compactPayload(captureState(state));
}

/** What a snapshot needs of a state, taken at once (arrays of the graph's node and edge objects, which the fold never changes in place). */
type CapturedState = Omit<GraphSnapshotPayload, 'edges'> & { edges: Edge[] };

function captureState(state: GraphState): CapturedState {
  const { nodes, edges } = toLineageGraph(state);
  return {
    graph_id: state.graphId,
    name: state.name,
    description: state.description,
    created_at: state.createdAt,
    updated_at: state.updatedAt,
    revision: state.revision,
    position: state.position,
    deleted: state.deleted,
    skipped_edges: state.skippedEdges,
    nodes,
    edges,
  };
}

/** The payload of a captured state: its edges as node indexes. */
function compactPayload(captured: CapturedState): GraphSnapshotPayload {
  const index = new Map(captured.nodes.map((node, at) => [node.id, at]));
  const edges = captured.edges.map((edge): GraphSnapshotPayload['edges'][number] => [
    index.get(edge.src_id)!,
    index.get(edge.dst_id)!,
    edge.edge_type,
    edge.attributes,
  ]);
  return { ...captured, edges };
}

/** Encodes a payload: gzip of its JSON. */
export async function encodeSnapshot(payload: GraphSnapshotPayload): Promise<Uint8Array> {
  return gzipAsync(JSON.stringify(payload));
}

/**
 * Restores the state a payload was taken from (its history empty: the changes before the snapshot
 * are not in it).
 * @throws Error when the bytes are not a gzip of a graph snapshot payload (corrupt or foreign).
 */
export function decodeSnapshot(bytes: Uint8Array): GraphState {
  const payload = JSON.parse(gunzipSync(bytes).toString('utf8')) as GraphSnapshotPayload;
  if (!Array.isArray(payload.nodes) || !Array.isArray(payload.edges) || typeof payload.revision !== 'number') {
    throw new Error('not a graph snapshot payload');
  }
  const state = initialGraphState(payload.graph_id);
  Object.assign(state, {
    name: payload.name,
    description: payload.description,
    createdAt: payload.created_at,
    updatedAt: payload.updated_at,
    revision: payload.revision,
    position: payload.position,
    deleted: payload.deleted,
    skippedEdges: payload.skipped_edges,
  });
  const { graph } = state;
  const { nodes } = payload;
  for (const node of nodes) graph.addNode(node.id, node);
  for (const [source, target, type, attributes] of payload.edges) {
    graph.addEdge({ src_id: nodes[source]!.id, dst_id: nodes[target]!.id, edge_type: type, attributes });
  }
  return state;
}

/** Whether a snapshot may start the fold to `asOf`: it holds only events the fold from the start would apply. */
function usableFor(info: SnapshotInfo, asOf: AsOf): boolean {
  if (info.format !== GRAPH_SNAPSHOT_FORMAT) return false;
  return 'revision' in asOf ? info.revision <= asOf.revision : Date.parse(info.recorded_at) <= Date.parse(asOf.time);
}

/**
 * The state restored from the latest usable snapshot before `asOf`, trying older ones when one cannot
 * be read; undefined when there is none (fold from the start).
 */
async function restoreNearest(store: EventStore, key: string, infos: SnapshotInfo[], asOf: AsOf) {
  const usable = infos.filter((info) => usableFor(info, asOf));
  for (let at = usable.length - 1; at >= 0; at -= 1) {
    const info = usable[at]!;
    try {
      const bytes = await store.snapshots.read(key, info.format, info.revision);
      if (!bytes) continue;
      const state = decodeSnapshot(bytes);
      if (state.revision !== info.revision) continue;
      return { state, maxRecordedAt: info.recorded_at };
    } catch {
      // A corrupt or unreadable snapshot only means folding from further back.
    }
  }
  return undefined;
}

/** Pending background snapshot writes of this process, by `{key}@{revision}` (so one is written once). */
const pendingWrites = new Map<string, Promise<void>>();
/** The last background write queued: writes run one after the other, so that each blocks the event loop alone. */
let writeQueue: Promise<void> = Promise.resolve();

/** Resolves once every snapshot write started so far has finished (tests and benchmarks wait on it). */
export async function snapshotWritesSettled(): Promise<void> {
  while (pendingWrites.size > 0) await Promise.allSettled([...pendingWrites.values()]);
}

/**
 * Stores the snapshot of a captured state unless the store has it already (another process or an
 * earlier fold took it: the encoding is then spared), then deletes the older-format snapshots up to it.
 */
async function storeSnapshot(store: EventStore, captured: CapturedState, maxRecordedAt: string): Promise<void> {
  const key = graphSnapshotKey(captured.graph_id);
  const info = { key, format: GRAPH_SNAPSHOT_FORMAT, revision: captured.revision, position: captured.position };
  const taken = await store.snapshots.list(key);
  if (taken.some((row) => row.format === info.format && row.revision === info.revision)) return;
  await store.snapshots.put({ ...info, recorded_at: maxRecordedAt }, await encodeSnapshot(compactPayload(captured)));
  for (const row of taken) {
    if (row.revision <= info.revision && isOlderFormat(row.format))
      await store.snapshots.remove(key, row.format, row.revision);
  }
}

/**
 * Writes a snapshot of `state` as it is now, in the background, after the writes queued before it;
 * the state is captured at once (its encoding, the costly part, waits its turn).
 */
function writeInBackground(store: EventStore, state: GraphState, maxRecordedAt: string, options: SnapshotOptions) {
  const id = `${graphSnapshotKey(state.graphId)}@${state.revision}`;
  if (pendingWrites.has(id)) return;
  const captured = captureState(state);
  const write = writeQueue
    .then(() => new Promise((resolve) => setImmediate(resolve)))
    .then(() => storeSnapshot(store, captured, maxRecordedAt))
    .catch((error: unknown) => options.onWriteError?.(error))
    .finally(() => pendingWrites.delete(id));
  writeQueue = write;
  pendingWrites.set(id, write);
}

/**
 * Folds a graph to `asOf` from the nearest usable snapshot before it (or from the start). With
 * `options.write`, a fold to a revision takes the last snapshot point it passes when the store lacks
 * it (one at most, so that a read's side work stays bounded; `writeGraphSnapshots` takes them all).
 * Gives the same state as `foldGraphAsOf` from the start, except that `history` holds only the
 * changes after the snapshot.
 * @throws NotFoundError when the graph has no events at or before that point.
 */
export async function readGraphAsOf(
  store: EventStore,
  graphId: string,
  asOf: AsOf,
  options: SnapshotOptions = {},
): Promise<FoldedGraph> {
  const interval = options.interval ?? DEFAULT_SNAPSHOT_INTERVAL;
  const key = graphSnapshotKey(graphId);
  const infos = await store.snapshots.list(key);
  const restored = await restoreNearest(store, key, infos, asOf);
  let point = -1;
  if (options.write !== false && 'revision' in asOf) {
    const end = Math.min(asOf.revision, await store.streamRevision(streams.graph(graphId)));
    point = Math.floor((end + 1) / interval) * interval - 1;
    if (infos.some((info) => info.format === GRAPH_SNAPSHOT_FORMAT && info.revision === point)) point = -1;
  }
  const folded: FoldedGraph = {
    state: restored?.state ?? initialGraphState(graphId),
    maxRecordedAt: restored?.maxRecordedAt ?? null,
  };
  await advance(store, folded, asOf, (state) => {
    if (state.revision === point) writeInBackground(store, state, folded.maxRecordedAt!, options);
  });
  return folded;
}

/**
 * Folds `folded` on to `asOf` in place, keeping its latest `recorded_at`; `after` sees the state
 * after each event.
 * @throws NotFoundError when the state is still empty at the end.
 */
async function advance(store: EventStore, folded: FoldedGraph, asOf: AsOf, after?: (state: GraphState) => void) {
  await foldGraphAsOf(store, folded.state.graphId, asOf, {
    from: folded.state,
    after: (state, event) => {
      if (folded.maxRecordedAt === null || Date.parse(event.recorded_at) > Date.parse(folded.maxRecordedAt)) {
        folded.maxRecordedAt = event.recorded_at;
      }
      after?.(state);
    },
  });
}

/**
 * Takes every snapshot a graph's stream lacks up to its end, one after the other (each stored before
 * the fold goes on, so that memory holds one state). Answers the number of snapshot points of the
 * stream (taken now or already there).
 */
export async function writeGraphSnapshots(
  store: EventStore,
  graphId: string,
  options: Pick<SnapshotOptions, 'interval'> = {},
): Promise<number> {
  const interval = options.interval ?? DEFAULT_SNAPSHOT_INTERVAL;
  const taken = new Set(
    (await store.snapshots.list(graphSnapshotKey(graphId)))
      .filter((info) => info.format === GRAPH_SNAPSHOT_FORMAT)
      .map((info) => info.revision),
  );
  const head = await store.streamRevision(streams.graph(graphId));
  let folded: FoldedGraph | undefined;
  for (let point = interval - 1; point <= head; point += interval) {
    if (taken.has(point)) {
      folded = undefined; // the next missing point starts from this snapshot
      continue;
    }
    if (folded) await advance(store, folded, { revision: point });
    else folded = await readGraphAsOf(store, graphId, { revision: point }, { interval, write: false });
    await storeSnapshot(store, captureState(folded.state), folded.maxRecordedAt!);
  }
  return Math.floor((head + 1) / interval);
}

/**
 * Takes each graph's snapshots as the live graph projection reaches their points (events applied
 * live, not while catching up), in the background. Only graphs whose stream the projector delivered
 * from revision 0 are snapshotted: a snapshot records the latest `recorded_at` of its events, which
 * only a listener that saw them all knows. Answers the function that stops it.
 */
export function followGraphSnapshots(options: {
  projector: { onApplied(listener: (event: StoredLineageEvent, replay: boolean) => void): () => void };
  projection: { getIncludingDeleted(graphId: string): GraphState | undefined };
  store: EventStore;
  interval?: number;
  onWriteError?: (error: unknown) => void;
}): () => void {
  const interval = options.interval ?? DEFAULT_SNAPSHOT_INTERVAL;
  // Per graph seen from revision 0: the latest recorded_at so far, as recorded.
  const latest = new Map<string, string>();
  const unknown = new Set<string>();
  return options.projector.onApplied((event, replay) => {
    if (!isGraphEvent(event) || unknown.has(event.data.graph_id)) return;
    const graphId = event.data.graph_id;
    const before = latest.get(graphId);
    if (before === undefined && event.revision !== 0) {
      unknown.add(graphId);
      return;
    }
    const time =
      before !== undefined && Date.parse(before) >= Date.parse(event.recorded_at) ? before : event.recorded_at;
    latest.set(graphId, time);
    if (replay || (event.revision + 1) % interval !== 0) return;
    const state = options.projection.getIncludingDeleted(graphId);
    if (state?.revision !== event.revision) return;
    writeInBackground(options.store, state, time, options);
  });
}

/** One end of a diff: the revision and the time of its last event (-1 and null before the graph existed). */
export interface DiffEnd {
  revision: number;
  time: string | null;
}

/** What changed between two points of a graph; every list is sorted by node id or edge key. */
export interface GraphStateDiff {
  from: DiffEnd;
  to: DiffEnd;
  nodes: { added: Node[]; removed: Node[]; changed: Array<{ id: string; before: Node; after: Node }> };
  edges: { added: Edge[]; removed: Edge[]; changed: Array<{ id: string; before: Edge; after: Edge }> };
}

/** The id of an edge in a diff: `{src_id} -[{edge_type}]-> {dst_id}`. */
export function edgeLabel(edge: Pick<Edge, 'src_id' | 'dst_id' | 'edge_type'>): string {
  return `${edge.src_id} -[${edge.edge_type}]-> ${edge.dst_id}`;
}

/** A graph's state at a point, or the empty state when the graph did not exist yet there. */
async function stateAt(store: EventStore, graphId: string, asOf: AsOf, options: SnapshotOptions) {
  try {
    return await readGraphAsOf(store, graphId, asOf, options);
  } catch (error) {
    if (error instanceof NotFoundError) return { state: initialGraphState(graphId), maxRecordedAt: null };
    throw error;
  }
}

/**
 * What changed in a graph from `from` to `to` (a point before the graph existed counts as the empty
 * graph). Equal to comparing the two states folded from the start (`diffGraph` in replace mode),
 * with every list sorted.
 */
export async function diffGraphAsOf(
  store: EventStore,
  graphId: string,
  from: AsOf,
  to: AsOf,
  options: SnapshotOptions = {},
): Promise<GraphStateDiff> {
  const interval = options.interval ?? DEFAULT_SNAPSHOT_INTERVAL;
  const before = await stateAt(store, graphId, from, options);
  const start: DiffEnd = { revision: before.state.revision, time: before.state.updatedAt };
  if (await replayable(store, graphId, before, to, interval)) {
    const touched = { nodes: new Map<string, Node | null>(), edges: new Map<string, Edge | null>() };
    let after = before.state;
    try {
      after = await foldGraphAsOf(store, graphId, to, {
        from: before.state,
        before: (state, event) => noteBefore(state, event, touched),
      });
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
    return { from: start, to: { revision: after.revision, time: after.updatedAt }, ...touchedChanges(after, touched) };
  }
  const after = (await stateAt(store, graphId, to, options)).state;
  return {
    from: start,
    to: { revision: after.revision, time: after.updatedAt },
    ...wholeChanges(before.state, after),
  };
}

/**
 * Whether `to`'s state is `from`'s state plus at most about `interval` more events, so that replaying
 * them is exact and cheap: `to` is a revision at or after it, or a time at or after every event in it,
 * and the stream (for a time, its nearest snapshot before `to`) is not more than `interval` events on.
 */
async function replayable(
  store: EventStore,
  graphId: string,
  from: FoldedGraph,
  to: AsOf,
  interval: number,
): Promise<boolean> {
  const at = from.state.revision;
  if ('revision' in to) {
    if (to.revision < at) return false;
    if (to.revision - at <= interval) return true;
    return (await store.streamRevision(streams.graph(graphId))) - at <= interval;
  }
  if (from.maxRecordedAt !== null && Date.parse(from.maxRecordedAt) > Date.parse(to.time)) return false;
  const infos = await store.snapshots.list(graphSnapshotKey(graphId));
  const nearest = infos.filter((info) => usableFor(info, to)).pop();
  return nearest === undefined || nearest.revision - at <= interval;
}

/**
 * Calls `node` with the id of every node and `edge` with the key of every edge that `event` may
 * change in `state` (and the edge's endpoints and type, for `ResidentGraph.edgeOf`), read before the
 * event is applied: a GraphCreated or GraphDeleted touches
 * everything, a node removal also the edges it takes with it. Used by the diff from snapshots and by
 * the history index (`./historyIndex.ts`).
 */
export function forEachTouched(
  state: GraphState,
  event: StoredLineageEvent,
  node: (id: string) => void,
  edge: (key: string, edge: EdgeKey) => void,
): void {
  const { graph } = state;
  switch (event.type) {
    case 'GraphCreated':
    case 'GraphDeleted':
      graph.forEachNode((value) => node(value.id));
      graph.forEachEdge((value) => edge(edgeKey(value), value));
      break;
    case 'NodesAdded':
    case 'NodesChanged':
      for (const added of event.data.nodes) node(added.id);
      break;
    case 'NodesRemoved':
      for (const id of event.data.node_ids) {
        node(id);
        graph.forEachOutgoing(id, (value) => edge(edgeKey(value), value));
        graph.forEachIncoming(id, (value) => edge(edgeKey(value), value));
      }
      break;
    case 'EdgesAdded':
    case 'EdgesChanged':
    case 'EdgesRemoved':
      for (const changed of event.data.edges) edge(edgeKey(changed), changed);
      break;
    default:
      break;
  }
}

/** Notes the value, before `event`, of every node and edge it may change (the first time each is seen). */
function noteBefore(
  state: GraphState,
  event: StoredLineageEvent,
  touched: { nodes: Map<string, Node | null>; edges: Map<string, Edge | null> },
): void {
  const { graph } = state;
  forEachTouched(
    state,
    event,
    (id) => {
      if (!touched.nodes.has(id)) touched.nodes.set(id, graph.node(id) ?? null);
    },
    (key) => {
      if (!touched.edges.has(key)) touched.edges.set(key, graph.edge(key) ?? null);
    },
  );
}

/** The changes among the touched nodes and edges: their noted values against the state reached. */
function touchedChanges(
  after: GraphState,
  touched: { nodes: Map<string, Node | null>; edges: Map<string, Edge | null> },
): Pick<GraphStateDiff, 'nodes' | 'edges'> {
  const result = emptyChanges();
  const { graph } = after;
  for (const [id, old] of touched.nodes) {
    const now = graph.node(id) ?? null;
    if (!old && now) result.nodes.added.push(now);
    else if (old && !now) result.nodes.removed.push(old);
    else if (old && now && !sameNode(old, now)) result.nodes.changed.push({ id, before: old, after: now });
  }
  for (const [key, old] of touched.edges) {
    const now = graph.edge(key) ?? null;
    if (!old && now) result.edges.added.push(now);
    else if (old && !now) result.edges.removed.push(old);
    else if (old && now && !sameEdge(old, now))
      result.edges.changed.push({ id: edgeLabel(now), before: old, after: now });
  }
  return sortChanges(result);
}

/**
 * The changes from one whole state to another (`diffGraph` in replace mode), sorted. What a diff
 * costs when both states are folded from the start; `diffGraphAsOf` uses it for wide diffs.
 */
export function wholeChanges(before: GraphState, after: GraphState): Pick<GraphStateDiff, 'nodes' | 'edges'> {
  const reader = graphReader(before);
  const changes = diffGraph(reader, toLineageGraph(after), { mode: 'replace' });
  const result = emptyChanges();
  result.nodes.added = changes.nodesAdded;
  result.nodes.removed = changes.nodesRemoved.flatMap((id) => reader.getNode(id) ?? []);
  result.nodes.changed = changes.nodesChanged.flatMap((node) => {
    const old = reader.getNode(node.id);
    return old ? [{ id: node.id, before: old, after: node }] : [];
  });
  result.edges.added = changes.edgesAdded;
  result.edges.removed = changes.edgesRemoved.flatMap((key) => reader.getEdge(edgeKey(key)) ?? []);
  result.edges.changed = changes.edgesChanged.flatMap((edge) => {
    const old = reader.getEdge(edgeKey(edge));
    return old ? [{ id: edgeLabel(edge), before: old, after: edge }] : [];
  });
  return sortChanges(result);
}

/** A diff's lists, all empty. */
export function emptyChanges(): Pick<GraphStateDiff, 'nodes' | 'edges'> {
  return { nodes: { added: [], removed: [], changed: [] }, edges: { added: [], removed: [], changed: [] } };
}

/** Sorts every list of a diff, in place: nodes by id, edges by key (source, type, target). */
export function sortChanges(changes: Pick<GraphStateDiff, 'nodes' | 'edges'>): Pick<GraphStateDiff, 'nodes' | 'edges'> {
  const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  changes.nodes.added.sort(byId);
  changes.nodes.removed.sort(byId);
  changes.nodes.changed.sort(byId);
  changes.edges.added = sortedByKey(changes.edges.added, (edge) => edge);
  changes.edges.removed = sortedByKey(changes.edges.removed, (edge) => edge);
  changes.edges.changed = sortedByKey(changes.edges.changed, (change) => change.after);
  return changes;
}

/**
 * `items` sorted by the `edgeKey` of their edge, compared field by field (source, type, target)
 * rather than as built keys: the same order, since ids hold no control characters and so sort after
 * the keys' tab wherever one is a prefix of another; half the time of sorting built keys on the
 * history bench's 30,000 edges (16 against 34 ms), and no key string per edge.
 */
function sortedByKey<T>(items: T[], edgeOf: (item: T) => Edge): T[] {
  const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return items.sort((first, second) => {
    const [a, b] = [edgeOf(first), edgeOf(second)];
    return compare(a.src_id, b.src_id) || compare(a.edge_type, b.edge_type) || compare(a.dst_id, b.dst_id);
  });
}
