/**
 * `GET /api/v1/graphs/{graph_id}/groups` (issue 27, the grouped overview): the sample graph's nodes
 * counted per environment, cluster and type and its edges per pair of groups, checked against counts
 * made here from the imported graph; a past revision answers that revision's counts; an unknown graph 404;
 * `max_groups` merges clusters, then environments; the counts are kept per revision (the same question
 * about the same revision answers the same object) and a write is counted afresh.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { graphGroups } from '../../services/graphGroups.js';
import { CLUSTER, ENV, sampleGraph, topicNode } from '../helpers/sampleGraph.js';
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

  it('merges clusters, then environments, to stay within max_groups', async () => {
    // Four copies of the sample graph, in two environments of two clusters each.
    const spread = await call(api.base, 'POST', '/api/v1/graphs', { json: { name: 'groups-spread' } });
    const spreadId = spread.body.graph_id as string;
    const copies = [0, 1, 2, 3].map((copy) => {
      const sample = sampleGraph();
      return {
        nodes: sample.nodes.map((node) => ({
          ...node,
          id: `${node.id}-${copy}`,
          qualified_name: `${node.qualified_name}-${copy}`,
          environment_id: `env-${copy % 2}`,
          cluster_id: node.cluster_id === null ? null : `lkc-${copy}`,
        })),
        edges: sample.edges.map((edge) => ({
          ...edge,
          src_id: `${edge.src_id}-${copy}`,
          dst_id: `${edge.dst_id}-${copy}`,
        })),
      };
    });
    const graph = { nodes: copies.flatMap((copy) => copy.nodes), edges: copies.flatMap((copy) => copy.edges) };
    const imported = await call(api.base, 'POST', `/api/v1/graphs/${spreadId}/import`, { json: graph });
    assert.equal(imported.status, 200, imported.text);
    type Answer = {
      merged: string;
      groups: { environment_id: string | null; cluster_id: string | null; node_type: string; node_count: number }[];
      links: { edge_count: number }[];
    };
    const ask = async (query: string) => {
      const answer = await call(api.base, 'GET', `/api/v1/graphs/${spreadId}/groups${query}`);
      assert.equal(answer.status, 200, answer.text);
      return answer.body as Answer;
    };
    const whole = await ask('');
    const types = new Set(graph.nodes.map((node) => node.node_type)).size;
    const perEnvironment = new Set(graph.nodes.map((node) => `${node.environment_id} ${node.node_type}`)).size;
    assert.ok(whole.groups.length > perEnvironment && perEnvironment > types, 'the sample spreads over the groups');
    assert.equal(whole.merged, 'none');
    const edgeSum = (answer: Answer) => answer.links.reduce((sum, link) => sum + link.edge_count, 0);
    const nodeSum = (answer: Answer) => answer.groups.reduce((sum, group) => sum + group.node_count, 0);
    const clusters = await ask(`?max_groups=${perEnvironment}`);
    assert.equal(clusters.merged, 'clusters');
    assert.equal(clusters.groups.length, perEnvironment);
    assert.ok(clusters.groups.every((group) => group.cluster_id === null && group.environment_id !== null));
    const environments = await ask(`?max_groups=${perEnvironment - 1}`);
    assert.equal(environments.merged, 'environments');
    assert.equal(environments.groups.length, types);
    assert.ok(environments.groups.every((group) => group.environment_id === null));
    for (const answer of [clusters, environments]) {
      assert.equal(nodeSum(answer), graph.nodes.length);
      assert.equal(edgeSum(answer), graph.edges.length);
    }
    assert.deepEqual(await ask(`?max_groups=${whole.groups.length}`), whole);
    assertProblem(await call(api.base, 'GET', `/api/v1/graphs/${spreadId}/groups?max_groups=0`), 400);
  });

  it('counts once per revision: the same revision answers the same counts, a write is counted afresh', async () => {
    const first = await graphGroups(api.runtime, graphId);
    assert.equal(await graphGroups(api.runtime, graphId), first, 'the second call answers the kept counts');
    assert.equal(await graphGroups(api.runtime, graphId, String(first.revision)), first, 'as_of the same revision too');
    const extra = topicNode(ENV, CLUSTER, 'another', {});
    const added = await call(api.base, 'POST', `/api/v1/graphs/${graphId}/import?mode=merge`, {
      json: { nodes: [extra], edges: [] },
    });
    assert.equal(added.status, 200, added.text);
    const second = await graphGroups(api.runtime, graphId);
    assert.ok(second.revision > first.revision);
    assert.equal(second.node_count, first.node_count + 1);
    const group = (answer: typeof first) =>
      answer.groups.find(
        (candidate) =>
          candidate.environment_id === extra.environment_id &&
          candidate.cluster_id === extra.cluster_id &&
          candidate.node_type === extra.node_type,
      )!.node_count;
    assert.equal(group(second), group(first) + 1);
    assert.equal(await graphGroups(api.runtime, graphId, String(first.revision)), first, 'the old revision is kept');
  });
});
