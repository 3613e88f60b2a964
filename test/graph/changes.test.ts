import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  changeEvents,
  countChanges,
  DIFF_SLICE_ITEMS,
  diffGraph,
  diffGraphSteps,
  isEmptyChange,
  type GraphReader,
} from '../../src/graph/changes.js';
import { syntheticGraph } from '../../bench/syntheticGraph.js';
import { edgeKey, type LineageGraph } from '../../src/graph/model.js';
import { ids, sampleGraph } from '../helpers/sampleGraph.js';

function reader(graph: LineageGraph): GraphReader {
  const nodes = new Map(graph.nodes.map((node) => [node.id, node]));
  const edges = new Map(graph.edges.map((edge) => [edgeKey(edge), edge]));
  return {
    getNode: (id) => nodes.get(id),
    getEdge: (key) => edges.get(key),
    nodes: () => nodes.values(),
    edges: () => edges.values(),
  };
}

const empty: LineageGraph = { nodes: [], edges: [] };

describe('graph changes', () => {
  it('pauses a large diff every DIFF_SLICE_ITEMS items it compares, and finds what the one-go diff finds (issue 23)', () => {
    const current = syntheticGraph({ nodes: 3_000, edges: 6_000, seed: 5 });
    const next = syntheticGraph({ nodes: 4_000, edges: 8_000, seed: 6 });
    const steps = diffGraphSteps(reader(current), next, { mode: 'replace' });
    let pauses = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) pauses += 1;
    // The new version's 12,000 items, then the current graph's 9,000 in replace mode.
    assert.equal(pauses, Math.floor(21_000 / DIFF_SLICE_ITEMS));
    assert.deepEqual(step.value, diffGraph(reader(current), next, { mode: 'replace' }));
  });

  it('finds nothing to record when the graph is unchanged', () => {
    const changes = diffGraph(reader(sampleGraph()), sampleGraph(), { mode: 'replace' });
    assert.ok(isEmptyChange(changes));
    assert.deepEqual(changeEvents('g', changes), []);
  });

  it('records additions, attribute changes and (in replace mode) removals', () => {
    const next = sampleGraph();
    next.nodes[2] = { ...next.nodes[2]!, attributes: { partitions: 12, replication_factor: 3 } };
    next.nodes = next.nodes.filter((node) => node.id !== ids.s3);
    next.edges = next.edges.filter((edge) => edge.dst_id !== ids.s3);
    next.edges[0] = { ...next.edges[0]!, attributes: { note: 'x' } };
    const changes = diffGraph(reader(sampleGraph()), next, { mode: 'replace' });
    assert.deepEqual(countChanges(changes), {
      nodes_added: 0,
      nodes_changed: 1,
      nodes_removed: 1,
      edges_added: 0,
      edges_changed: 1,
      edges_removed: 1,
    });
    assert.equal(changes.nodesChanged[0]!.id, ids.orders);
    assert.deepEqual(changes.nodesRemoved, [ids.s3]);
    const merged = diffGraph(reader(sampleGraph()), next, { mode: 'merge' });
    assert.deepEqual(merged.nodesRemoved, []);
    assert.deepEqual(merged.edgesRemoved, []);
  });

  it('removes only within the scope in replace mode', () => {
    const changes = diffGraph(reader(sampleGraph()), empty, {
      mode: 'replace',
      scope: (node) => node.system === 'EXTERNAL',
    });
    assert.deepEqual(new Set(changes.nodesRemoved), new Set([ids.postgres, ids.s3]));
    assert.deepEqual(
      new Set(changes.edgesRemoved.map((edge) => edge.src_id + '>' + edge.dst_id)),
      new Set([`${ids.postgres}>${ids.source}`, `${ids.sink}>${ids.s3}`]),
    );
  });

  it('orders events so that the graph stays consistent, and chunks them', () => {
    const removeAll = diffGraph(reader(sampleGraph()), empty, { mode: 'replace' });
    const addAll = diffGraph(reader(empty), sampleGraph(), { mode: 'merge' });
    const both = { ...addAll, nodesRemoved: removeAll.nodesRemoved, edgesRemoved: removeAll.edgesRemoved };
    const events = changeEvents('g', both, 4);
    const order = events.map((event) => event.type);
    assert.deepEqual([...new Set(order)], ['EdgesRemoved', 'NodesRemoved', 'NodesAdded', 'EdgesAdded']);
    assert.equal(order.filter((type) => type === 'NodesAdded').length, 3, '11 nodes in chunks of 4');
    assert.ok(events.every((event) => 'graph_id' in event.data && event.data.graph_id === 'g'));
  });
});
