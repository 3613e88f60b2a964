/**
 * Specifications of the graph fold (`evolveGraph`, `projections/graphProjection.ts`): given the
 * events of one `graph-{graph_id}` stream, the graph (nodes and edges, whole), its name, revision and
 * change history, as the API serves them and as `as_of` folds them afresh.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChangeCounts, EventOf, LineageEvent } from '../../src/events.js';
import { edgeKey, type Edge, type EdgeKey, type Node } from '../../src/graph/model.js';
import {
  evolveGraph,
  initialGraphState,
  toLineageGraph,
  type GraphHistoryEntry,
  type GraphState,
} from '../../projections/graphProjection.js';
import { recorded, recordedAt, type EventToRecord } from '../helpers/recordedEvents.js';
import { ids, sampleGraph } from '../helpers/sampleGraph.js';
import { specification } from '../helpers/specification.js';

const GRAPH = 'g-orders';

/** Everything the fold keeps, with the graphology graph read back as whole nodes and edges. */
function view(state: GraphState) {
  const { graph: _graph, ...rest } = state;
  return { ...rest, ...toLineageGraph(state) };
}
type GraphView = ReturnType<typeof view>;

const { given } = specification({ initialState: () => initialGraphState(GRAPH), evolve: evolveGraph, view });

const sample = sampleGraph();
const node = (id: string): Node => structuredClone(sample.nodes.find((candidate) => candidate.id === id)!);
const edge = (src: string, type: Edge['edge_type'], dst: string): Edge =>
  structuredClone(
    sample.edges.find((candidate) => edgeKey(candidate) === edgeKey({ src_id: src, edge_type: type, dst_id: dst }))!,
  );
const keyOf = ({ src_id, dst_id, edge_type }: Edge): EdgeKey => ({ src_id, dst_id, edge_type });

const orders = node(ids.orders);
const enrich = node(ids.enrich);
const enriched = node(ids.enriched);
const ordersToEnrich = edge(ids.orders, 'CONSUMES', ids.enrich);
const enrichToEnriched = edge(ids.enrich, 'PRODUCES', ids.enriched);

const graphCreated: EventOf<'GraphCreated'> = {
  type: 'GraphCreated',
  data: { graph_id: GRAPH, name: 'orders', description: 'Orders and what becomes of them' },
};
const graphDeleted: EventOf<'GraphDeleted'> = { type: 'GraphDeleted', data: { graph_id: GRAPH } };
const nodesAdded = (...nodes: Node[]): EventOf<'NodesAdded'> => ({
  type: 'NodesAdded',
  data: { graph_id: GRAPH, nodes },
});
const nodesChanged = (...nodes: Node[]): EventOf<'NodesChanged'> => ({
  type: 'NodesChanged',
  data: { graph_id: GRAPH, nodes },
});
const nodesRemoved = (...nodeIds: string[]): EventOf<'NodesRemoved'> => ({
  type: 'NodesRemoved',
  data: { graph_id: GRAPH, node_ids: nodeIds },
});
const edgesAdded = (...edges: Edge[]): EventOf<'EdgesAdded'> => ({
  type: 'EdgesAdded',
  data: { graph_id: GRAPH, edges },
});
const edgesChanged = (...edges: Edge[]): EventOf<'EdgesChanged'> => ({
  type: 'EdgesChanged',
  data: { graph_id: GRAPH, edges },
});
const edgesRemoved = (...edges: Edge[]): EventOf<'EdgesRemoved'> => ({
  type: 'EdgesRemoved',
  data: { graph_id: GRAPH, edges: edges.map(keyOf) },
});

/** The events of one change (one append): one correlation id, made by an extraction run from the command line. */
function change(correlationId: string, ...events: LineageEvent[]): EventToRecord[] {
  return events.map((event) => ({
    ...event,
    metadata: { correlation_id: correlationId, cause: 'extraction', actor: 'cli' },
  }));
}

const noCounts: ChangeCounts = {
  nodes_added: 0,
  nodes_changed: 0,
  nodes_removed: 0,
  edges_added: 0,
  edges_changed: 0,
  edges_removed: 0,
};
/** A history entry of a change by `change(correlationId, ...)` whose first event is at `index` and last at `revision`. */
function entry(
  correlationId: string,
  index: number,
  revision: number,
  kind: GraphHistoryEntry['kind'],
  counts: Partial<ChangeCounts> = {},
): GraphHistoryEntry {
  return {
    revision,
    time: recordedAt(index),
    cause: 'extraction',
    actor: 'cli',
    correlation_id: correlationId,
    kind,
    counts: { ...noCounts, ...counts },
  };
}

/** The graph after `change('c-0', graphCreated)`. */
const CREATED: GraphView = {
  graphId: GRAPH,
  name: 'orders',
  description: 'Orders and what becomes of them',
  createdAt: recordedAt(0),
  updatedAt: recordedAt(0),
  revision: 0,
  position: 1,
  deleted: false,
  history: [entry('c-0', 0, 0, 'created')],
  skippedEdges: 0,
  nodes: [],
  edges: [],
};
/** The graph after `change('c-0', graphCreated)` and the change `c-1` that adds three nodes and two edges. */
const POPULATED: GraphView = {
  ...CREATED,
  updatedAt: recordedAt(2),
  revision: 2,
  position: 3,
  history: [...CREATED.history, entry('c-1', 1, 2, 'changed', { nodes_added: 3, edges_added: 2 })],
  nodes: [orders, enrich, enriched],
  edges: [ordersToEnrich, enrichToEnriched],
};
const populated = (): EventToRecord[] => [
  ...change('c-0', graphCreated),
  ...change('c-1', nodesAdded(orders, enrich, enriched), edgesAdded(ordersToEnrich, enrichToEnriched)),
];

describe('graph fold', () => {
  it('before any event the graph is unnamed and empty, at revision -1', () =>
    given([]).then({
      ...CREATED,
      name: null,
      description: null,
      createdAt: null,
      updatedAt: null,
      revision: -1,
      position: 0,
      history: [],
    }));

  it('GraphCreated names the graph and starts its history', () =>
    given(recorded(change('c-0', graphCreated))).then(CREATED));

  it('the nodes and edges of one change are added, and are one history entry with their counts', () =>
    given(recorded(populated())).then(POPULATED));

  it('each change is its own history entry, at the revision of its last event', () =>
    given(recorded([...populated(), ...change('c-2', nodesChanged({ ...orders, display_name: 'orders (CDC)' }))])).then(
      {
        ...POPULATED,
        updatedAt: recordedAt(3),
        revision: 3,
        position: 4,
        history: [...POPULATED.history, entry('c-2', 3, 3, 'changed', { nodes_changed: 1 })],
        nodes: [{ ...orders, display_name: 'orders (CDC)' }, enrich, enriched],
      },
    ));

  it('events without a correlation id are each a history entry of their own, of unknown cause', () =>
    given(recorded([graphCreated, nodesAdded(orders), nodesAdded(enrich)])).then((state) =>
      assert.deepEqual(
        state.history.map(({ revision, kind, cause, actor, correlation_id, counts }) => ({
          revision,
          kind,
          cause,
          actor,
          correlation_id,
          nodes_added: counts.nodes_added,
        })),
        [
          { revision: 0, kind: 'created', cause: 'unknown', actor: null, correlation_id: null, nodes_added: 0 },
          { revision: 1, kind: 'changed', cause: 'unknown', actor: null, correlation_id: null, nodes_added: 1 },
          { revision: 2, kind: 'changed', cause: 'unknown', actor: null, correlation_id: null, nodes_added: 1 },
        ],
      ),
    ));

  it('NodesChanged and EdgesChanged replace the whole node and edge with their new state', () => {
    const repartitioned: Node = { ...orders, attributes: { partitions: 12 } };
    const lagging: Edge = { ...ordersToEnrich, attributes: { lag: 40 } };
    given(recorded([...populated(), ...change('c-2', nodesChanged(repartitioned), edgesChanged(lagging))])).then({
      ...POPULATED,
      updatedAt: recordedAt(4),
      revision: 4,
      position: 5,
      history: [...POPULATED.history, entry('c-2', 3, 4, 'changed', { nodes_changed: 1, edges_changed: 1 })],
      nodes: [repartitioned, enrich, enriched],
      edges: [lagging, enrichToEnriched],
    });
  });

  it('EdgesRemoved drops those edges and keeps their nodes', () =>
    given(recorded([...populated(), ...change('c-2', edgesRemoved(ordersToEnrich))])).then({
      ...POPULATED,
      updatedAt: recordedAt(3),
      revision: 3,
      position: 4,
      history: [...POPULATED.history, entry('c-2', 3, 3, 'changed', { edges_removed: 1 })],
      edges: [enrichToEnriched],
    }));

  it('NodesRemoved drops the nodes, and with them any edge still touching them', () =>
    given(
      recorded([...populated(), ...change('c-2', edgesRemoved(ordersToEnrich), nodesRemoved(ids.orders, ids.enrich))]),
    ).then({
      ...POPULATED,
      updatedAt: recordedAt(4),
      revision: 4,
      position: 5,
      history: [...POPULATED.history, entry('c-2', 3, 4, 'changed', { nodes_removed: 2, edges_removed: 1 })],
      nodes: [enriched],
      edges: [],
    }));

  it('an edge whose endpoint is missing (a damaged stream) is skipped and counted', () =>
    given(
      recorded([...change('c-0', graphCreated), ...change('c-1', nodesAdded(orders), edgesAdded(ordersToEnrich))]),
    ).then({
      ...CREATED,
      updatedAt: recordedAt(2),
      revision: 2,
      position: 3,
      history: [...CREATED.history, entry('c-1', 1, 2, 'changed', { nodes_added: 1, edges_added: 1 })],
      skippedEdges: 1,
      nodes: [orders],
    }));

  it('replaying the events of a change leaves the same nodes and edges', () => {
    const events = populated();
    given(recorded([...events, ...events.slice(1)])).then((state) =>
      assert.deepEqual(toLineageGraph(state), { nodes: POPULATED.nodes, edges: POPULATED.edges }),
    );
  });

  it('GraphDeleted empties the graph and marks it deleted', () =>
    given(recorded([...populated(), ...change('c-2', graphDeleted)])).then({
      ...POPULATED,
      updatedAt: recordedAt(3),
      revision: 3,
      position: 4,
      deleted: true,
      history: [...POPULATED.history, entry('c-2', 3, 3, 'deleted')],
      nodes: [],
      edges: [],
    }));

  it('GraphCreated after GraphDeleted brings the graph back, empty, with its history', () =>
    given(
      recorded([
        ...populated(),
        ...change('c-2', graphDeleted),
        ...change('c-2', { ...graphCreated, data: { ...graphCreated.data, name: 'orders again' } }, nodesAdded(enrich)),
      ]),
    ).then({
      ...POPULATED,
      name: 'orders again',
      createdAt: recordedAt(4),
      updatedAt: recordedAt(5),
      revision: 5,
      position: 6,
      history: [...POPULATED.history, entry('c-2', 3, 3, 'deleted'), entry('c-2', 4, 5, 'created', { nodes_added: 1 })],
      nodes: [enrich],
      edges: [],
    }));

  it('events that are not graph events change nothing, not even the history', () =>
    given(
      recorded([
        ...populated(),
        {
          type: 'TaskCreated',
          data: { task_id: 't-1', task_type: 'extract', parameters: {} },
          stream: `graph-${GRAPH}`,
        },
        { type: 'WatcherDeregistered', data: { watcher_id: 'w-1' } },
      ]),
    ).then(POPULATED));

  it('an event that does not match its schema (NodesAdded without nodes) is refused, not recorded as no change', () =>
    given(
      recorded([
        ...change('c-0', graphCreated),
        { type: 'NodesAdded', data: { graph_id: GRAPH } } as unknown as EventToRecord,
      ]),
    ).thenThrows(TypeError));
});
