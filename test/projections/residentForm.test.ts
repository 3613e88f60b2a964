/**
 * The resident form of the graph projection (issue 16, item 2): nodes and edges are kept with their
 * repeated strings interned and edges pointing at their nodes' own id strings, under keys built from
 * those strings. Whatever the representation, a fold must equal the plain one: the graph each event
 * describes, built with plain graphology calls keyed by `edgeKey`. Checked on random histories of
 * adds, changes and removals (seeded, so that a failure repeats), through `toLineageGraph`,
 * `graphReader` and graphology's own keys.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MultiDirectedGraph } from 'graphology';
import type { StoredLineageEvent } from '../../src/events.js';
import { connectorId, topicId } from '../../src/graph/ids.js';
import { edgeKey, type Edge, type Node } from '../../src/graph/model.js';
import { evolveGraph, graphReader, initialGraphState, toLineageGraph } from '../../projections/graphProjection.js';
import { seededRandom } from '../../bench/syntheticGraph.js';

const GRAPH = '00000000-0000-4000-8000-0000000000f1';

/** Node `index`: topics at even indexes, connectors at odd ones, in one of three environments. */
function node(index: number, version: number): Node {
  const environment = `env-${index % 3}`;
  const topic = index % 2 === 0;
  const name = `${topic ? 'topic' : 'connector'}-${index}`;
  return {
    id: topic ? topicId(environment, 'lkc-1', name) : connectorId(environment, 'lkc-1', name),
    node_type: topic ? 'TOPIC' : 'CONNECTOR',
    system: 'STREAM',
    qualified_name: `lkc-1/${name}`,
    display_name: name,
    environment_id: environment,
    cluster_id: 'lkc-1',
    attributes: version === 0 ? null : { version, tags: [`v${version}`] },
  };
}

/** The edge between topic `topicIndex` and connector `connectorIndex`, in the direction its type has. */
function edge(topicIndex: number, connectorIndex: number, consumes: boolean, version: number): Edge {
  const topic = node(topicIndex, 0).id;
  const connector = node(connectorIndex, 0).id;
  return {
    src_id: consumes ? topic : connector,
    dst_id: consumes ? connector : topic,
    edge_type: consumes ? 'CONSUMES' : 'PRODUCES',
    attributes: version === 0 ? null : { version },
  };
}

/** A random history of `length` events on a graph of up to 40 nodes, as decoded events. */
function history(seed: number, length: number): StoredLineageEvent[] {
  const next = seededRandom(seed);
  const pick = (count: number) => Math.floor(next() * count);
  const events: StoredLineageEvent[] = [];
  const push = (type: string, data: Record<string, unknown>) =>
    events.push({
      type,
      data: { graph_id: GRAPH, ...data },
      stream: `graph-${GRAPH}`,
      revision: events.length,
      position: events.length + 1,
      recorded_at: new Date(Date.UTC(2026, 0, 1, 0, 0, events.length)).toISOString(),
      metadata: { event_id: `e${events.length}`, correlation_id: `c${Math.floor(events.length / 3)}` },
    } as unknown as StoredLineageEvent);
  push('GraphCreated', { name: 'resident', description: null });
  for (let step = 1; step < length; step += 1) {
    const kind = pick(6);
    const nodes = Array.from({ length: 1 + pick(6) }, () => node(pick(40), pick(3)));
    const edges = Array.from({ length: 1 + pick(6) }, () => {
      const topicIndex = pick(20) * 2;
      return edge(topicIndex, pick(20) * 2 + 1, next() < 0.5, pick(3));
    });
    if (kind === 0) push('NodesAdded', { nodes });
    else if (kind === 1) push('NodesChanged', { nodes });
    else if (kind === 2) push('NodesRemoved', { node_ids: nodes.map((item) => item.id) });
    else if (kind === 3) push('EdgesAdded', { edges });
    else if (kind === 4) push('EdgesChanged', { edges });
    else push('EdgesRemoved', { edges: edges.map(({ src_id, dst_id, edge_type }) => ({ src_id, dst_id, edge_type })) });
  }
  return events;
}

/** The plain fold: graphology calls keyed by `edgeKey`, on copies of the events' items. */
function plainFold(events: readonly StoredLineageEvent[]): { graph: MultiDirectedGraph<Node, Edge>; skipped: number } {
  const graph = new MultiDirectedGraph<Node, Edge>({ allowSelfLoops: true });
  let skipped = 0;
  for (const event of structuredClone(events) as unknown as Array<{ type: string; data: Record<string, unknown> }>) {
    if (event.type === 'NodesAdded' || event.type === 'NodesChanged') {
      for (const item of event.data.nodes as Node[]) {
        if (graph.hasNode(item.id)) graph.replaceNodeAttributes(item.id, item);
        else graph.addNode(item.id, item);
      }
    } else if (event.type === 'NodesRemoved') {
      for (const id of event.data.node_ids as string[]) if (graph.hasNode(id)) graph.dropNode(id);
    } else if (event.type === 'EdgesAdded' || event.type === 'EdgesChanged') {
      for (const item of event.data.edges as Edge[]) {
        const key = edgeKey(item);
        if (graph.hasEdge(key)) graph.replaceEdgeAttributes(key, item);
        else if (graph.hasNode(item.src_id) && graph.hasNode(item.dst_id))
          graph.addEdgeWithKey(key, item.src_id, item.dst_id, item);
        else skipped += 1;
      }
    } else if (event.type === 'EdgesRemoved') {
      for (const item of event.data.edges as Edge[]) if (graph.hasEdge(edgeKey(item))) graph.dropEdge(edgeKey(item));
    }
  }
  return { graph, skipped };
}

describe('the resident form of the graph projection', () => {
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`folds a random history to the plain graph (seed ${seed})`, () => {
      const events = history(seed, 300);
      const state = initialGraphState(GRAPH);
      for (const event of structuredClone(events)) evolveGraph(state, event);
      const plain = plainFold(events);

      const resident = toLineageGraph(state);
      assert.deepEqual(
        resident.nodes,
        plain.graph.mapNodes((_, attributes) => attributes),
      );
      assert.deepEqual(
        resident.edges,
        plain.graph.mapEdges((_, attributes) => attributes),
      );
      assert.equal(state.skippedEdges, plain.skipped);
      assert.ok(state.graph.size > 0 && state.graph.order > 0, 'the history leaves a graph to compare');

      const reader = graphReader(state);
      plain.graph.forEachEdge((key, attributes, source, target) => {
        assert.deepEqual(reader.getEdge(key), attributes, `edge ${key} found by its edgeKey`);
        assert.ok(state.graph.hasEdge(key));
        const edge = state.graph.edge(key)!;
        assert.deepEqual([edge.src_id, edge.dst_id], [source, target]);
      });
      state.graph.forEachEdge((edge) => assert.equal(state.graph.edge(edgeKey(edge)), edge, 'found by its edgeKey'));
      plain.graph.forEachNode((id, attributes) => assert.deepEqual(reader.getNode(id), attributes));
    });
  }

  it('keeps equal values when it interns them, and no value of one node leaks into another', () => {
    const events = history(9, 200);
    const state = initialGraphState(GRAPH);
    for (const event of events) evolveGraph(state, event);
    state.graph.forEachNode((attributes) => {
      const { id } = attributes;
      assert.equal(state.graph.node(id), attributes);
      assert.ok(attributes.qualified_name.endsWith(attributes.display_name));
      assert.equal(attributes.environment_id, id.split(':')[2]);
    });
    state.graph.forEachEdge((attributes, source, target) => {
      assert.equal(attributes.src_id, source.id);
      assert.equal(attributes.dst_id, target.id);
    });
  });
});
