/**
 * Traversals answered from traversal indexes, over a real socket, on the memory and sqlite stores:
 * the same answers as the graphology walk (which `as_of` always uses), pooled answer buffers that
 * are never shared by two answers in flight, and fresh answers right after a change.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { syntheticGraph } from '../../bench/syntheticGraph.js';
import { edgeKey, type Edge } from '../../src/graph/model.js';
import { answerBuffers } from '../../projections/traversal/index.js';
import { BACKENDS, call, enc, startApi, type TestApi } from './helpers.js';

interface Traversal {
  origin: { id: string };
  direction: string;
  hops: number;
  nodes: Array<{ id: string; hop: number; display_name: string }>;
  edges: Edge[];
  node_count: number;
  edge_count: number;
}

/** A traversal with its nodes and edges in a fixed order (the two walks may order a hop differently). */
function normalized(answer: Traversal): Traversal {
  return {
    ...answer,
    nodes: [...answer.nodes].sort((a, b) => a.hop - b.hop || a.id.localeCompare(b.id)),
    edges: [...answer.edges].sort((a, b) => edgeKey(a).localeCompare(edgeKey(b))),
  };
}

for (const backend of BACKENDS) {
  describe(`traversals from a traversal index (${backend} store)`, () => {
    let api: TestApi;
    let graphId: string;
    let revision: number;
    const graph = syntheticGraph({ nodes: 3_000, edges: 9_000, seed: 11 });
    const get = (path: string) => call(api.base, 'GET', `/api/v1${path}`);
    const traversal = (id: string, direction: string, hops: number, asOf?: number) =>
      get(`/graphs/${graphId}/query/${direction}/${enc(id)}?hops=${hops}${asOf === undefined ? '' : `&as_of=${asOf}`}`);

    before(async () => {
      api = await startApi({ backend, traversalIndexQuietMilliseconds: 0 });
      const created = await call(api.base, 'POST', '/api/v1/graphs', { json: { name: 'synthetic' } });
      graphId = created.body.graph_id;
      const imported = await call(api.base, 'POST', `/api/v1/graphs/${graphId}/import`, { json: graph });
      assert.equal(imported.status, 200);
      revision = (await get(`/graphs/${graphId}`)).body.revision;
    });
    after(async () => api.dispose());

    it('answers what the graph walk answers, as application/json', async () => {
      assert.ok(api.runtime.graphs.traversalIndex(graphId), 'the graph is indexed (quiet period 0)');
      for (const origin of [graph.nodes[0]!.id, graph.nodes[1_234]!.id, graph.nodes[2_999]!.id]) {
        for (const direction of ['upstream', 'downstream']) {
          for (const hops of [1, 4, 10]) {
            const indexed = await traversal(origin, direction, hops);
            const walked = await traversal(origin, direction, hops, revision);
            assert.equal(indexed.status, 200);
            assert.equal(indexed.type, 'application/json; charset=utf-8');
            assert.equal(Number(indexed.headers.get('content-length')), Buffer.byteLength(indexed.text));
            assert.deepEqual(
              normalized(indexed.body),
              normalized(walked.body),
              `${direction} ${hops} hops from ${origin}`,
            );
          }
        }
      }
    });

    it('never lets two answers in flight share a pooled buffer, and gives the buffers back', async () => {
      // Large answers (pooled: 64 KiB and more) requested all at once, each checked against its walk.
      const origins = graph.nodes.filter((_, index) => index % 97 === 0).map((node) => node.id);
      const expected = await Promise.all(
        origins.map(async (origin) => normalized((await traversal(origin, 'downstream', 10, revision)).body)),
      );
      const answers = await Promise.all(origins.map((origin) => traversal(origin, 'downstream', 10)));
      assert.ok(
        answers.some((answer) => answer.text.length >= 64 * 1024),
        'some answers are large enough to be pooled',
      );
      answers.forEach((answer, index) => assert.deepEqual(normalized(answer.body), expected[index]));
      assert.ok(answerBuffers.freeCount > 0, 'buffers are back in the pool once their answers are sent');
    });

    it('answers the whole graph and its export while indexed, as the same revision read with as_of', async () => {
      const whole = await get(`/graphs/${graphId}`);
      const walked = await get(`/graphs/${graphId}?as_of=${revision}`);
      assert.equal(whole.status, 200);
      assert.equal(whole.type, 'application/json; charset=utf-8');
      assert.equal(whole.body.revision, revision);
      assert.equal(whole.body.nodes.length, graph.nodes.length);
      assert.deepEqual(whole.body, walked.body);
      const exported = await get(`/graphs/${graphId}/export`);
      assert.deepEqual(Object.keys(exported.body), ['nodes', 'edges']);
      assert.deepEqual(exported.body, { nodes: walked.body.nodes, edges: walked.body.edges });
    });

    it('answers the new revision right after a change', async () => {
      const origin = graph.nodes[0]!;
      const renamed = { ...origin, display_name: 'renamed just now' };
      assert.equal((await call(api.base, 'POST', `/api/v1/graphs/${graphId}/nodes`, { json: renamed })).status, 200);
      const index = api.runtime.graphs.traversalIndex(graphId);
      assert.ok(index, 'quiet period 0: a new index at once');
      assert.equal(index.revision, (await get(`/graphs/${graphId}`)).body.revision);
      const answer = await traversal(origin.id, 'downstream', 1);
      assert.equal(answer.status, 200);
      assert.equal(answer.body.origin.display_name, 'renamed just now');
    });
  });
}

describe('traversal indexes prepared by the running runtime', () => {
  let api: TestApi;
  after(async () => api?.dispose());

  it('indexes a graph in the background after its first traversal, and answers from the index the same way', async () => {
    api = await startApi({ traversalIndexQuietMilliseconds: 0 });
    const graph = syntheticGraph({ nodes: 2_000, edges: 6_000, seed: 5 });
    const graphId = (await call(api.base, 'POST', '/api/v1/graphs', { json: { name: 'background' } })).body
      .graph_id as string;
    assert.equal((await call(api.base, 'POST', `/api/v1/graphs/${graphId}/import`, { json: graph })).status, 200);
    const origin = graph.nodes[10]!.id;
    const path = `/api/v1/graphs/${graphId}/query/downstream/${enc(origin)}?hops=10`;
    const walked = await call(api.base, 'GET', path);
    assert.equal(walked.status, 200);
    // The first traversal asked for the index; the runtime's background work (1 s sweep, 5 ms slices) builds it.
    const deadline = Date.now() + 10_000;
    let index = api.runtime.graphs.traversalIndex(graphId, { build: false });
    while (!index && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      index = api.runtime.graphs.traversalIndex(graphId, { build: false });
    }
    assert.ok(index, 'built in the background');
    assert.equal(index.order, graph.nodes.length);
    const indexed = await call(api.base, 'GET', path);
    assert.deepEqual(normalized(indexed.body), normalized(walked.body));
  });
});
