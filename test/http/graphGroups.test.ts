/**
 * `GET /api/v1/graphs/{graph_id}/groups` (issue 27, the grouped overview): the sample graph's nodes
 * counted per environment, cluster and type and its edges per pair of groups, checked against counts
 * made here from the imported graph; a past revision answers that revision's counts; an unknown graph 404.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sampleGraph } from '../helpers/sampleGraph.js';
import { assertProblem, call, startApi, type TestApi } from './helpers.js';

describe('GET /api/v1/graphs/{graph_id}/groups', () => {
  let api: TestApi;
  let graphId: string;
  before(async () => {
    api = await startApi();
    const created = await call(api.base, 'POST', '/api/v1/graphs', { json: { name: 'groups' } });
    graphId = created.body.graph_id;
    const imported = await call(api.base, 'POST', `/api/v1/graphs/${graphId}/import`, { json: sampleGraph() });
    assert.equal(imported.status, 200, imported.text);
  });
  after(() => api.dispose());

  it('counts nodes per environment, cluster and type, and edges per pair of groups', async () => {
    const graph = sampleGraph();
    const answer = await call(api.base, 'GET', `/api/v1/graphs/${graphId}/groups`);
    assert.equal(answer.status, 200, answer.text);
    const keyOf = (node: { environment_id?: string | null; cluster_id?: string | null; node_type: string }) =>
      `${node.environment_id ?? '-'} ${node.cluster_id ?? '-'} ${node.node_type}`;
    const expected = new Map<string, number>();
    for (const node of graph.nodes) expected.set(keyOf(node), (expected.get(keyOf(node)) ?? 0) + 1);
    const groups = answer.body.groups as {
      environment_id: string | null;
      cluster_id: string | null;
      node_type: string;
      node_count: number;
    }[];
    assert.deepEqual(new Map(groups.map((group) => [keyOf(group), group.node_count])), expected);
    assert.ok(groups.length > 1 && groups.length < graph.nodes.length, 'nodes are grouped');
    const byNode = new Map(graph.nodes.map((node) => [node.id, keyOf(node)]));
    const expectedLinks = new Map<string, number>();
    for (const edge of graph.edges) {
      const key = `${byNode.get(edge.src_id)} -> ${byNode.get(edge.dst_id)}`;
      expectedLinks.set(key, (expectedLinks.get(key) ?? 0) + 1);
    }
    const links = answer.body.links as { source: number; target: number; edge_count: number }[];
    assert.deepEqual(
      new Map(
        links.map((link) => [`${keyOf(groups[link.source]!)} -> ${keyOf(groups[link.target]!)}`, link.edge_count]),
      ),
      expectedLinks,
    );
    assert.equal(answer.body.node_count, graph.nodes.length);
    assert.equal(answer.body.edge_count, graph.edges.length);
  });

  it('answers a past revision, and 404 for an unknown graph', async () => {
    const created = await call(api.base, 'GET', `/api/v1/graphs/${graphId}/groups?as_of=0`);
    assert.equal(created.status, 200, created.text);
    assert.deepEqual([created.body.groups, created.body.links, created.body.node_count], [[], [], 0]);
    assertProblem(await call(api.base, 'GET', '/api/v1/graphs/no-such-graph/groups'), 404);
  });
});
