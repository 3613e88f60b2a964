/**
 * `GET /api/v1/graphs/{graph_id}/drawing` (issue 27, the first render of a large graph): the sample
 * graph's nodes and edges in columns, read back into nodes and edges and checked against the whole
 * graph (`GET /graphs/{id}`) field by field (all but attributes and catalog types); the nodes marked internal and the metric bytes; a past
 * revision (`as_of`) answers that revision; problem+json for an unknown graph and a malformed `as_of`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GraphDrawing } from '../../services/graphDrawing.js';
import { sampleGraph } from '../helpers/sampleGraph.js';
import { assertProblem, call, startApi, type TestApi } from './helpers.js';

/** The nodes and edges a drawing stands for, in the whole graph's wire form (without attributes). */
function readDrawing(drawing: GraphDrawing) {
  const { nodes, edges } = drawing;
  return {
    nodes: nodes.id.map((id, index) => ({
      id,
      node_type: drawing.node_types[nodes.node_type[index]!],
      system: drawing.systems[nodes.system[index]!],
      qualified_name: nodes.qualified_name[index] ?? nodes.display_name[index],
      display_name: nodes.display_name[index],
      environment_id: nodes.environment[index] === null ? null : drawing.environments[nodes.environment[index]!],
      cluster_id: nodes.cluster[index] === null ? null : drawing.clusters[nodes.cluster[index]!],
    })),
    edges: edges.source.map((source, index) => ({
      src_id: nodes.id[source],
      dst_id: nodes.id[edges.target[index]!],
      edge_type: drawing.edge_types[edges.edge_type[index]!],
    })),
  };
}

describe('GET /api/v1/graphs/{graph_id}/drawing', () => {
  let api: TestApi;
  let graphId: string;
  const graph = sampleGraph();
  // One topic marked internal and carrying the bytes of a metric sample.
  const marked = graph.nodes.find((node) => node.node_type === 'TOPIC')!;
  marked.attributes = { ...marked.attributes, internal: true, metrics_received_bytes: 2048, metrics_sent_bytes: 4096 };
  before(async () => {
    api = await startApi();
    const created = await call(api.base, 'POST', '/api/v1/graphs', { json: { name: 'drawing' } });
    graphId = created.body.graph_id;
    const imported = await call(api.base, 'POST', `/api/v1/graphs/${graphId}/import`, { json: graph });
    assert.equal(imported.status, 200, imported.text);
  });
  after(() => api.dispose());

  it('answers the whole graph’s nodes and edges in columns, its summary first', async () => {
    const [drawingAnswer, wholeAnswer] = await Promise.all([
      call(api.base, 'GET', `/api/v1/graphs/${graphId}/drawing`),
      call(api.base, 'GET', `/api/v1/graphs/${graphId}`),
    ]);
    assert.equal(drawingAnswer.status, 200, drawingAnswer.text);
    assert.match(drawingAnswer.type, /^application\/json/);
    const drawing = drawingAnswer.body as GraphDrawing;
    const whole = wholeAnswer.body as { nodes: Record<string, unknown>[]; edges: Record<string, unknown>[] };
    // A drawing leaves out attributes and the catalog type of catalog tables (read with the node's record).
    const withoutAttributes = ({ attributes: _, catalog_type: __, ...rest }: Record<string, unknown>) => rest;
    const read = readDrawing(drawing);
    assert.deepEqual(read.nodes, whole.nodes.map(withoutAttributes));
    assert.deepEqual(read.edges, whole.edges.map(withoutAttributes));
    for (const field of ['graph_id', 'name', 'node_count', 'edge_count', 'revision', 'created_at', 'updated_at'])
      assert.equal(drawing[field as keyof GraphDrawing], wholeAnswer.body[field], field);
    assert.equal(drawing.node_count, graph.nodes.length);
    // Distinct values are listed once.
    for (const list of [
      drawing.node_types,
      drawing.systems,
      drawing.edge_types,
      drawing.environments,
      drawing.clusters,
    ])
      assert.equal(new Set(list).size, list.length);
    const index = drawing.nodes.id.indexOf(marked.id);
    assert.deepEqual(drawing.internal, [index]);
    assert.deepEqual(drawing.throughput, { node: [index], received_bytes: [2048], sent_bytes: [4096] });
    assert.ok(drawingAnswer.text.length < JSON.stringify(whole).length, 'the drawing is smaller than the graph');
  });

  it('reads a past revision with as_of, as the whole graph does', async () => {
    const empty = await call(api.base, 'GET', `/api/v1/graphs/${graphId}/drawing?as_of=0`);
    assert.equal(empty.status, 200, empty.text);
    assert.deepEqual([empty.body.node_count, empty.body.nodes.id, empty.body.edges.source], [0, [], []]);
    // A past point is read from the graph's history (its edges' ends looked up by id), now from the
    // resident graph (its edges' ends by position): the same drawing at the same revision.
    const current = await call(api.base, 'GET', `/api/v1/graphs/${graphId}/drawing`);
    const now = await call(api.base, 'GET', `/api/v1/graphs/${graphId}/drawing?as_of=${current.body.revision}`);
    assert.equal(now.status, 200, now.text);
    assert.deepEqual(now.body, current.body);
    assert.equal(now.body.nodes.id.length, graph.nodes.length);
  });

  it('answers problem+json for an unknown graph and a malformed as_of', async () => {
    assertProblem(await call(api.base, 'GET', '/api/v1/graphs/no-such-graph/drawing'), 404);
    assertProblem(await call(api.base, 'GET', `/api/v1/graphs/${graphId}/drawing?as_of=yesterday`), 400);
  });
});
