/**
 * Provenance of a node or an edge (issue 22, item 4): when it was first and last seen, every change
 * to it with the write that made it, and why it was removed. What users of other lineage tools
 * cannot ask: "why did this edge vanish?".
 *
 * - `GET /api/v1/graphs/{graph_id}/nodes/{node_id}/history` -> `nodeProvenance`;
 * - `GET /api/v1/graphs/{graph_id}/edges/history?src_id&dst_id&edge_type` -> `edgeProvenance`.
 *
 * The changes come from the provenance index (`projections/provenanceIndex.ts`), fed with the graph's
 * whole stream on the first question about it; each change's state (the node or edge after it) is
 * read from the store for the page answered. A removal by an extraction says which scope did not
 * list the element (`ExtractionStarted` of that extraction); a removal through the API or an import
 * says so; an edge removed with one of its nodes names the node.
 */
import { NotFoundError, ValidationError } from '../src/errors.js';
import type { EventStore } from '../src/eventStore.js';
import { decodeTrustedEvent, streams, type StoredLineageEvent } from '../src/events.js';
import { edgeKey, type Edge, type EdgeKey, type Node } from '../src/graph/model.js';
import type { GraphState } from '../projections/graphProjection.js';
import type { ElementChange, ProvenanceIndex } from '../projections/provenanceIndex.js';
import { resolveGraphId, type GraphRuntime } from './graphs.js';

/** The part of the runtime provenance reads. */
export type ProvenanceRuntime = GraphRuntime & { provenance: ProvenanceIndex };

/** Events read from the store per page while a graph is indexed. */
const INDEX_PAGE = 2_000;
/** Most changes answered per request (`limit`, newest first beyond it). */
export const MAX_PROVENANCE_CHANGES = 500;

/** One change of an element, as the API answers it. Times are ISO 8601. */
export interface ProvenanceChange {
  /** Revision of the graph's stream (the history entry is the write with this correlation id). */
  revision: number;
  recorded_at: string;
  change: 'added' | 'changed' | 'removed';
  /** Why the write was made: `extraction`, `enrichment`, `import`, `api`, `ingestion`, ... */
  cause: string | null;
  /** Who asked: `cli` (lineage-svc-extract), `api`, `watcher:{id}`, `kafka`, ... */
  actor: string | null;
  /** The write's correlation id: the extraction id for an extraction. */
  correlation_id: string | null;
  /** In words: what the write was and, for a removal, why the element went. */
  reason: string;
  /** The node or edge after the change; null for a removal. */
  state: Node | Edge | null;
}

/** The provenance of one element. */
export interface Provenance {
  graph_id: string;
  /** The node id, or the edge's key fields. */
  element: { node_id: string } | EdgeKey;
  /** Whether the element is in the graph now. */
  present: boolean;
  /** When it was first added (ISO 8601). */
  first_seen: string;
  /**
   * When it was last seen: the time of the graph's latest write while it is present (it is in the
   * graph as of then), else the time of its removal.
   */
  last_seen: string;
  /** Changes in all. */
  total: number;
  /** The changes answered, oldest first: all of them, or the newest `limit`. */
  changes: ProvenanceChange[];
}

/** Feeds the graph's whole stream into the index when it has not been yet (pages of `INDEX_PAGE`). */
async function ensureIndexed(runtime: ProvenanceRuntime, graphId: string): Promise<void> {
  const index = runtime.provenance;
  if (index.isIndexed(graphId)) return;
  const stream = streams.graph(graphId);
  for (;;) {
    const from = index.nextRevision(graphId);
    const page = await runtime.store.readStream(stream, { fromRevision: from, maxCount: INDEX_PAGE });
    const events = page.map((recorded) => decodeTrustedEvent(recorded));
    index.ingest(graphId, events, page.length < INDEX_PAGE);
    if (page.length < INDEX_PAGE) return;
  }
}

/** The event of the graph's stream at `revision`, decoded. */
async function eventAt(store: EventStore, graphId: string, revision: number): Promise<StoredLineageEvent | undefined> {
  const [recorded] = await store.readStream(streams.graph(graphId), { fromRevision: revision, toRevision: revision });
  return recorded ? decodeTrustedEvent(recorded) : undefined;
}

/** The environments and clusters an extraction read (its `ExtractionStarted`), in words. */
async function extractionScopeWords(store: EventStore, extractionId: string): Promise<string | undefined> {
  const [started] = await store.readStream(streams.extraction(extractionId), { maxCount: 1 });
  if (!started || started.type !== 'ExtractionStarted') return undefined;
  const data = decodeTrustedEvent(started).data as { environment_ids: string[]; cluster_ids: string[] };
  const clusters = data.cluster_ids.length > 0 ? ` (cluster ${data.cluster_ids.join(', ')})` : '';
  return `environment ${data.environment_ids.join(', ')}${clusters}`;
}

/** What a write was, in words: `extraction ... by lineage-svc-extract`, `written through the API`, ... */
function writeWords(change: ElementChange): string {
  const { cause, actor, correlation_id: correlation } = change.metadata;
  const by =
    actor === 'cli' ? 'lineage-svc-extract' : actor?.startsWith('watcher:') ? `watcher ${actor.slice(8)}` : actor;
  switch (cause) {
    case 'extraction':
      return `extraction ${correlation ?? ''}${by ? ` by ${by}` : ''}`.replace('  ', ' ');
    case 'enrichment':
      return `catalog enrichment${by ? ` by ${by}` : ''}`;
    case 'import':
      return 'a graph import through the API';
    case 'api':
      return 'a write through the API';
    default:
      return cause ? `${cause}${by ? ` by ${by}` : ''}` : 'a write';
  }
}

/** Why an element was removed by `change`, in words. */
async function removalReason(store: EventStore, change: ElementChange, ends: readonly string[]): Promise<string> {
  if (ends.length === 1) return `its node ${ends[0]!} was removed (${writeWords(change)})`;
  if (ends.length > 1) return `its nodes ${ends.join(' and ')} were removed (${writeWords(change)})`;
  const { cause, correlation_id: correlation } = change.metadata;
  if (cause === 'extraction' && correlation) {
    const scope = await extractionScopeWords(store, correlation);
    return `not listed by the extraction of ${scope ?? 'its scope'} at revision ${change.revision} (extraction ${correlation})`;
  }
  if (cause === 'api') return 'deleted through the API';
  if (cause === 'import') return 'not in the graph imported with mode replace';
  return `removed by ${writeWords(change)}`;
}

/** Parses `limit` (1 to `MAX_PROVENANCE_CHANGES`, default 100). @throws ValidationError */
function pageLimit(limit: number | undefined): number {
  if (limit === undefined) return 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PROVENANCE_CHANGES)
    throw new ValidationError(`limit must be a whole number from 1 to ${MAX_PROVENANCE_CHANGES}`);
  return limit;
}

/** The answer for an element's changes: the newest `limit`, each with its state and reason. */
async function answer(
  runtime: ProvenanceRuntime,
  graphId: string,
  element: Provenance['element'],
  all: readonly ElementChange[],
  limit: number,
  stateOf: (event: StoredLineageEvent) => Node | Edge | undefined,
  current: (state: GraphState) => Node | Edge | undefined,
  endsRemovedBy: (change: ElementChange) => string[],
): Promise<Provenance> {
  const live = runtime.graphs.getIncludingDeleted(graphId);
  const last = all.at(-1)!;
  const present = last.change !== 'removed' && live !== undefined && !live.deleted;
  // The state after the last change of a present element is its value in the projection (when the
  // projection has applied that change): no store read for the common answer.
  const liveState = present && live.revision >= last.revision ? current(live) : undefined;
  const changes: ProvenanceChange[] = [];
  for (const change of all.slice(-limit)) {
    let state: Node | Edge | null = null;
    if (change.change !== 'removed') {
      if (change === last && liveState !== undefined) state = liveState;
      else {
        const event = await eventAt(runtime.store, graphId, change.revision);
        state = (event && stateOf(event)) ?? null;
      }
    }
    const reason =
      change.change === 'removed'
        ? await removalReason(runtime.store, change, endsRemovedBy(change))
        : `${change.change} by ${writeWords(change)}`;
    changes.push({
      revision: change.revision,
      recorded_at: change.recorded_at,
      change: change.change,
      cause: change.metadata.cause ?? null,
      actor: change.metadata.actor ?? null,
      correlation_id: change.metadata.correlation_id ?? null,
      reason,
      state,
    });
  }
  return {
    graph_id: graphId,
    element,
    present,
    first_seen: all[0]!.recorded_at,
    last_seen: present ? (live?.updatedAt ?? last.recorded_at) : last.recorded_at,
    total: all.length,
    changes,
  };
}

/**
 * The graph a provenance question names, indexed, and the page size asked for.
 * @throws NotFoundError for an unknown graph; ValidationError for a bad limit.
 */
async function indexedGraph(
  runtime: ProvenanceRuntime,
  idOrName: string,
  limit: number | undefined,
): Promise<{ graphId: string; size: number }> {
  const size = pageLimit(limit);
  const graphId = resolveGraphId(runtime, idOrName);
  if (!runtime.graphs.getIncludingDeleted(graphId)) throw new NotFoundError(`graph "${graphId}" not found`);
  await ensureIndexed(runtime, graphId);
  return { graphId, size };
}

/**
 * The provenance of a node.
 * @param limit how many of the newest changes to answer (1-500, default 100).
 * @throws NotFoundError for an unknown graph or a node the graph never held; ValidationError for a bad limit.
 */
export async function nodeProvenance(
  runtime: ProvenanceRuntime,
  idOrName: string,
  nodeId: string,
  limit?: number,
): Promise<Provenance> {
  const { graphId, size } = await indexedGraph(runtime, idOrName, limit);
  const all = runtime.provenance.nodeChanges(graphId, nodeId);
  if (all.length === 0) throw new NotFoundError(`node "${nodeId}" was never in graph "${graphId}"`);
  const stateOf = (event: StoredLineageEvent) =>
    event.type === 'NodesAdded' || event.type === 'NodesChanged'
      ? event.data.nodes.find((node) => node.id === nodeId)
      : undefined;
  return answer(
    runtime,
    graphId,
    { node_id: nodeId },
    all,
    size,
    stateOf,
    (state) => state.graph.node(nodeId),
    () => [],
  );
}

/**
 * The provenance of an edge.
 * @param limit how many of the newest changes to answer (1-500, default 100).
 * @throws NotFoundError for an unknown graph or an edge the graph never held; ValidationError for a bad limit.
 */
export async function edgeProvenance(
  runtime: ProvenanceRuntime,
  idOrName: string,
  edge: EdgeKey,
  limit?: number,
): Promise<Provenance> {
  const { graphId, size } = await indexedGraph(runtime, idOrName, limit);
  const key = edgeKey(edge);
  const all = runtime.provenance.edgeChanges(graphId, key);
  if (all.length === 0)
    throw new NotFoundError(`edge ${edge.src_id} -${edge.edge_type}-> ${edge.dst_id} was never in graph "${graphId}"`);
  const stateOf = (event: StoredLineageEvent) =>
    event.type === 'EdgesAdded' || event.type === 'EdgesChanged'
      ? event.data.edges.find((candidate) => edgeKey(candidate) === key)
      : undefined;
  // An edge removed in the write that removed one of its nodes went with that node.
  const endsRemovedBy = (removal: ElementChange) => {
    const removedNodes = new Set(
      runtime.provenance
        .nodeChanges(graphId, edge.src_id)
        .concat(runtime.provenance.nodeChanges(graphId, edge.dst_id))
        .filter(
          (change) =>
            change.change === 'removed' &&
            change.metadata.correlation_id !== undefined &&
            change.metadata.correlation_id === removal.metadata.correlation_id,
        )
        .map((change) => change.revision),
    );
    if (removedNodes.size === 0) return [];
    return [edge.src_id, edge.dst_id].filter((id) =>
      runtime.provenance
        .nodeChanges(graphId, id)
        .some((change) => change.change === 'removed' && removedNodes.has(change.revision)),
    );
  };
  return answer(runtime, graphId, edge, all, size, stateOf, (state) => state.graph.edge(key), endsRemovedBy);
}
