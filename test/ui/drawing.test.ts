/**
 * The UI's reading of a graph's drawing (`documentOfDrawing`, `ui/src/graphData.ts`): the drawing of
 * the sample graph, as the API answers it, read back into the nodes and edges of the whole graph
 * (with only the attributes drawing reads), and `withDetails` laying full records over light ones.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { call, startApi } from '../http/helpers.js';
import { sampleGraph } from '../helpers/sampleGraph.js';
import { loadUiModule, type LineageEdge, type LineageNode } from '../helpers/uiModules.js';

const { documentOfDrawing, edgeThroughputBetween, isInternalTopic, withDetails } = (await loadUiModule(
  'graphData',
)) as {
  documentOfDrawing(drawing: unknown): { node_count: number; nodes: LineageNode[]; edges: LineageEdge[] };
  edgeThroughputBetween(
    edge: Pick<LineageEdge, 'edge_type'>,
    source: LineageNode | undefined,
    target: LineageNode | undefined,
  ): number | null;
  isInternalTopic(node: LineageNode): boolean;
  withDetails(
    nodesById: Map<string, LineageNode>,
    edges: LineageEdge[],
    details: { nodes: LineageNode[]; edges: LineageEdge[] },
    edgeIndex: Map<string, number> | null,
  ): Map<string, number>;
};

/** An edge's throughput with its ends found by id (the page finds them by index). */
const edgeThroughput = (edge: LineageEdge, byId: Map<string, LineageNode>): number | null =>
  edgeThroughputBetween(edge, byId.get(edge.src_id), byId.get(edge.dst_id));

describe('the drawing of a graph in the UI', () => {
  it('reads a drawing into the whole graph’s nodes and edges, with the attributes drawing reads', async () => {
    const graph = sampleGraph();
    const topic = graph.nodes.find((node) => node.node_type === 'TOPIC')!;
    topic.attributes = { ...topic.attributes, internal: true, metrics_received_bytes: 10, metrics_sent_bytes: 20 };
    const api = await startApi();
    try {
      const created = await call(api.base, 'POST', '/api/v1/graphs', { json: { name: 'drawn' } });
      const graphId = created.body.graph_id as string;
      const imported = await call(api.base, 'POST', `/api/v1/graphs/${graphId}/import`, { json: graph });
      assert.equal(imported.status, 200, imported.text);
      const read = documentOfDrawing((await call(api.base, 'GET', `/api/v1/graphs/${graphId}/drawing`)).body);
      const light = ({ attributes: _, catalog_type: __, ...rest }: LineageNode & { catalog_type?: string | null }) =>
        rest;
      assert.deepEqual(read.nodes.map(light), graph.nodes.map(light));
      assert.deepEqual(
        read.edges,
        graph.edges.map((edge) => ({ ...edge, attributes: null })),
      );
      assert.equal(read.node_count, graph.nodes.length);
      const readTopic = read.nodes.find((node) => node.id === topic.id)!;
      assert.ok(isInternalTopic(readTopic), 'the internal mark is kept');
      const byId = new Map(read.nodes.map((node) => [node.id, node]));
      const into = read.edges.find((edge) => edge.dst_id === topic.id && edge.edge_type === 'PRODUCES')!;
      assert.equal(edgeThroughput(into, byId), 10, 'the metric bytes are kept');
      assert.ok(read.nodes.filter((node) => node.id !== topic.id).every((node) => node.attributes === null));
    } finally {
      await api.dispose();
    }
  });

  it('lays full records over light ones, replacing edges in place and adding new ones', () => {
    const node = (id: string, attributes: Record<string, unknown> | null): LineageNode => ({
      id,
      node_type: 'TOPIC',
      system: 'STREAM',
      qualified_name: id,
      display_name: id,
      environment_id: null,
      cluster_id: null,
      attributes,
    });
    const edge = (src: string, dst: string, attributes: Record<string, unknown> | null): LineageEdge => ({
      src_id: src,
      dst_id: dst,
      edge_type: 'CONSUMES',
      attributes,
    });
    const nodesById = new Map([node('a', null), node('b', null)].map((item) => [item.id, item]));
    const edges = [edge('a', 'b', null), edge('b', 'a', null)];
    const index = withDetails(
      nodesById,
      edges,
      { nodes: [node('a', { partitions: 6 })], edges: [edge('b', 'a', { weight: 1 }), edge('a', 'a', {})] },
      null,
    );
    assert.deepEqual(nodesById.get('a')!.attributes, { partitions: 6 });
    assert.equal(nodesById.get('b')!.attributes, null);
    assert.deepEqual(
      edges.map((item) => item.attributes),
      [null, { weight: 1 }, {}],
    );
    assert.equal(index.size, 3);
    withDetails(nodesById, edges, { nodes: [], edges: [edge('a', 'b', { weight: 2 })] }, index);
    assert.deepEqual(edges[0]!.attributes, { weight: 2 });
  });
});
