/**
 * The provenance index (issue 22, item 4): for each node and edge of a graph, the revisions of the
 * graph's stream that added, changed or removed it, and for each such revision its time and
 * metadata (cause, actor, correlation id). It answers "when did this element appear, what changed
 * it, why did it vanish" in a map lookup, whatever the length of the history.
 *
 * A graph is indexed on demand: the first question about it feeds its whole stream (`ingest`, by
 * `services/provenance.ts`, in pages read from the store), and from then on the projector's events
 * keep it current (`apply`). Both feed events in revision order and skip what the index holds
 * already, so they may interleave. Graphs nobody asks about cost nothing.
 *
 * Memory: one array of revision numbers per element touched, and one small record per event of
 * the graph's stream (not per item). Pure: no I/O.
 */
import type { EventMetadata } from '../src/eventStore.js';
import type { StoredLineageEvent } from '../src/events.js';
import { edgeKey } from '../src/graph/model.js';

/** What an event did to an element. */
export type ElementChangeKind = 'added' | 'changed' | 'removed';

/** One event of a graph's stream, as the index keeps it. */
export interface IndexedEvent {
  revision: number;
  /** Global position of the event in the store. */
  position: number;
  /** ISO 8601 time the event was recorded. */
  recorded_at: string;
  type: StoredLineageEvent['type'];
  metadata: EventMetadata;
}

/** One change of one element. */
export interface ElementChange extends IndexedEvent {
  change: ElementChangeKind;
}

/** The provenance of the elements of the graphs indexed so far. */
export interface ProvenanceIndex {
  /** Global position of the last event applied (0 before any): the projector's checkpoint. */
  readonly position: number;
  /** Whether the graph's whole stream has been fed (its answers are complete). */
  isIndexed(graphId: string): boolean;
  /** The next revision of the graph's stream the index expects (0 before any). */
  nextRevision(graphId: string): number;
  /**
   * Feeds events of one graph's stream read from the store, in revision order (those the index
   * holds already are skipped). With `complete`, the stream has been read to its end.
   */
  ingest(graphId: string, events: readonly StoredLineageEvent[], complete: boolean): void;
  /** Applies one event from the projector (graphs not being indexed are ignored). */
  apply(event: StoredLineageEvent): void;
  /** Forgets everything (before a rebuild). */
  reset(): void;
  /** The changes of a node, oldest first; empty when the graph never touched it. */
  nodeChanges(graphId: string, nodeId: string): ElementChange[];
  /** The changes of an edge (by its `edgeKey`), oldest first. */
  edgeChanges(graphId: string, key: string): ElementChange[];
  /** The `GraphDeleted` and `GraphCreated` events of the graph, oldest first. */
  lifecycle(graphId: string): IndexedEvent[];
}

/** The index of one graph. */
interface GraphProvenance {
  next: number;
  complete: boolean;
  events: Map<number, IndexedEvent>;
  /** Node id -> its changes, each `revision * 4 + kind code`, oldest first. */
  nodes: Map<string, number[]>;
  /** Edge key (`edgeKey`) -> its changes, as for nodes. */
  edges: Map<string, number[]>;
  lifecycle: number[];
}

/** The kind of a change, kept in the low two bits beside the revision (revision * 4 + code). */
const KIND_CODES: Record<ElementChangeKind, number> = { added: 0, changed: 1, removed: 2 };
const KINDS: ElementChangeKind[] = ['added', 'changed', 'removed'];

function note(map: Map<string, number[]>, key: string, revision: number, kind: ElementChangeKind): void {
  const entry = revision * 4 + KIND_CODES[kind];
  const list = map.get(key);
  if (list) list.push(entry);
  else map.set(key, [entry]);
}

/** Records one graph event into the graph's index (the caller checked its revision). */
function record(graph: GraphProvenance, event: StoredLineageEvent): void {
  const revision = event.revision;
  graph.events.set(revision, {
    revision,
    position: event.position,
    recorded_at: event.recorded_at,
    type: event.type,
    metadata: event.metadata,
  });
  switch (event.type) {
    case 'NodesAdded':
      for (const node of event.data.nodes) note(graph.nodes, node.id, revision, 'added');
      break;
    case 'NodesChanged':
      for (const node of event.data.nodes) note(graph.nodes, node.id, revision, 'changed');
      break;
    case 'NodesRemoved':
      for (const id of event.data.node_ids) note(graph.nodes, id, revision, 'removed');
      break;
    case 'EdgesAdded':
      for (const edge of event.data.edges) note(graph.edges, edgeKey(edge), revision, 'added');
      break;
    case 'EdgesChanged':
      for (const edge of event.data.edges) note(graph.edges, edgeKey(edge), revision, 'changed');
      break;
    case 'EdgesRemoved':
      for (const edge of event.data.edges) note(graph.edges, edgeKey(edge), revision, 'removed');
      break;
    case 'GraphCreated':
    case 'GraphDeleted':
      graph.lifecycle.push(revision);
      break;
    default:
      break;
  }
  graph.next = revision + 1;
}

/** The graph id of an event of a `graph-{id}` stream, or undefined for any other stream. */
function graphOf(event: StoredLineageEvent): string | undefined {
  return event.stream.startsWith('graph-') ? event.stream.slice('graph-'.length) : undefined;
}

/** Creates an empty provenance index. */
export function createProvenanceIndex(): ProvenanceIndex {
  const graphs = new Map<string, GraphProvenance>();
  const graphIndex = (graphId: string): GraphProvenance => {
    let graph = graphs.get(graphId);
    if (!graph) {
      graph = { next: 0, complete: false, events: new Map(), nodes: new Map(), edges: new Map(), lifecycle: [] };
      graphs.set(graphId, graph);
    }
    return graph;
  };
  const changes = (graph: GraphProvenance | undefined, list: number[] | undefined): ElementChange[] =>
    graph === undefined || list === undefined
      ? []
      : list.map((entry) => ({ ...graph.events.get(Math.floor(entry / 4))!, change: KINDS[entry % 4]! }));
  let position = 0;
  return {
    get position() {
      return position;
    },
    isIndexed: (graphId) => graphs.get(graphId)?.complete === true,
    nextRevision: (graphId) => graphs.get(graphId)?.next ?? 0,
    ingest(graphId, events, complete) {
      const graph = graphIndex(graphId);
      for (const event of events) if (event.revision === graph.next) record(graph, event);
      if (complete) graph.complete = true;
    },
    apply(event) {
      position = event.position;
      const graphId = graphOf(event);
      if (graphId === undefined) return;
      const graph = graphs.get(graphId);
      // Only graphs being indexed, and only the next event in order (the reader fetches any gap).
      if (graph && event.revision === graph.next) record(graph, event);
    },
    reset() {
      graphs.clear();
      position = 0;
    },
    nodeChanges(graphId, nodeId) {
      const graph = graphs.get(graphId);
      return changes(graph, graph?.nodes.get(nodeId));
    },
    edgeChanges(graphId, key) {
      const graph = graphs.get(graphId);
      return changes(graph, graph?.edges.get(key));
    },
    lifecycle(graphId) {
      const graph = graphs.get(graphId);
      return graph ? graph.lifecycle.map((revision) => graph.events.get(revision)!) : [];
    },
  };
}
