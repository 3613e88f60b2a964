/**
 * Provenance of nodes and edges (issue 22, item 4) through the API, on the memory and sqlite stores:
 * `GET /graphs/{id}/nodes/{node_id}/history` and `GET /graphs/{id}/edges/history` answer when an
 * element was first and last seen, each change with its write (cause, actor, correlation id) and
 * state, and why it was removed: an import with mode replace, or the removal of a node its edge
 * needed. Then the errors: an unknown graph, node or edge (404), a bad limit or edge type (400). The
 * removal by an extraction ("not listed by the extraction of ...") is checked on the demo estate by
 * `test/extraction/historyTruth.test.ts`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ids, sampleGraph } from '../helpers/sampleGraph.js';
import { assertProblem, BACKENDS, call, enc, startApi, type TestApi } from './helpers.js';

interface ProvenanceAnswer {
  present: boolean;
  first_seen: string;
  last_seen: string;
  total: number;
  changes: {
    change: string;
    cause: string | null;
    actor: string | null;
    reason: string;
    state: unknown;
    revision: number;
    recorded_at: string;
  }[];
}

for (const backend of BACKENDS) {
  describe(`provenance of nodes and edges (${backend} store)`, () => {
    let api: TestApi;
    let graphId: string;
    const graph = sampleGraph();
    const [first, second] = graph.nodes;
    const edge = graph.edges.find((candidate) => candidate.src_id === first!.id || candidate.dst_id === first!.id)!;

    before(async () => {
      api = await startApi({ backend });
      const created = await call(api.base, 'POST', '/api/v1/graphs', { json: { name: `provenance-${backend}` } });
      assert.equal(created.status, 201, created.text);
      graphId = (created.body as { graph_id: string }).graph_id;
      const imported = await call(api.base, 'POST', `/api/v1/graphs/${graphId}/import`, { json: graph });
      assert.equal(imported.status, 200, imported.text);
      const changed = await call(api.base, 'POST', `/api/v1/graphs/${graphId}/nodes`, {
        json: { ...first, attributes: { ...first!.attributes, owner: 'team-a' } },
      });
      assert.equal(changed.status, 200, changed.text);
      // Replace with every node but the first: it goes, and its edges with it.
      const rest = {
        nodes: graph.nodes.filter((node) => node.id !== first!.id),
        edges: graph.edges.filter((candidate) => candidate.src_id !== first!.id && candidate.dst_id !== first!.id),
      };
      const replaced = await call(api.base, 'POST', `/api/v1/graphs/${graphId}/import?mode=replace`, { json: rest });
      assert.equal(replaced.status, 200, replaced.text);
    });
    after(() => api?.dispose());

    it('answers a removed node: added by the import, changed through the API, removed by the replace', async () => {
      const answer = await call(api.base, 'GET', `/api/v1/graphs/${graphId}/nodes/${enc(first!.id)}/history`);
      assert.equal(answer.status, 200, answer.text);
      const provenance = answer.body as ProvenanceAnswer;
      assert.deepEqual(
        provenance.changes.map((change) => [change.change, change.cause]),
        [
          ['added', 'import'],
          ['changed', 'api'],
          ['removed', 'import'],
        ],
      );
      assert.equal(provenance.present, false);
      assert.equal(provenance.total, 3);
      assert.equal(provenance.last_seen, provenance.changes[2]!.recorded_at);
      assert.match(provenance.changes[2]!.reason, /not in the graph imported with mode replace/);
      assert.equal((provenance.changes[1]!.state as { attributes: { owner: string } }).attributes.owner, 'team-a');
      assert.equal(provenance.changes[2]!.state, null);
      assert.ok(provenance.changes[0]!.revision < provenance.changes[1]!.revision);
    });

    it('answers a present node, and the newest changes with limit', async () => {
      const answer = await call(api.base, 'GET', `/api/v1/graphs/${graphId}/nodes/${enc(second!.id)}/history`);
      assert.equal(answer.status, 200, answer.text);
      const provenance = answer.body as ProvenanceAnswer;
      assert.equal(provenance.present, true);
      assert.deepEqual(
        provenance.changes.map((change) => change.change),
        ['added'],
      );
      const limited = await call(api.base, 'GET', `/api/v1/graphs/${graphId}/nodes/${enc(first!.id)}/history?limit=1`);
      assert.deepEqual(
        (limited.body as ProvenanceAnswer).changes.map((change) => change.change),
        ['removed'],
      );
      assert.equal((limited.body as ProvenanceAnswer).total, 3);
    });

    it('answers an edge removed with its node, naming the node', async () => {
      const query = `src_id=${enc(edge.src_id)}&dst_id=${enc(edge.dst_id)}&edge_type=${edge.edge_type}`;
      const answer = await call(api.base, 'GET', `/api/v1/graphs/${graphId}/edges/history?${query}`);
      assert.equal(answer.status, 200, answer.text);
      const provenance = answer.body as ProvenanceAnswer;
      assert.deepEqual(
        provenance.changes.map((change) => change.change),
        ['added', 'removed'],
      );
      assert.match(
        provenance.changes[1]!.reason,
        new RegExp(`its node ${first!.id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} was removed`),
      );
    });

    it('keeps answering as the graph changes after the first question', async () => {
      const again = await call(api.base, 'POST', `/api/v1/graphs/${graphId}/nodes`, { json: first });
      assert.equal(again.status, 201, again.text);
      const answer = await call(api.base, 'GET', `/api/v1/graphs/${graphId}/nodes/${enc(first!.id)}/history`);
      const provenance = answer.body as ProvenanceAnswer;
      assert.deepEqual(
        provenance.changes.map((change) => change.change),
        ['added', 'changed', 'removed', 'added'],
      );
      assert.equal(provenance.present, true);
    });

    it('answers 404 for an unknown graph, node or edge, and 400 for a bad limit or edge type', async () => {
      assertProblem(await call(api.base, 'GET', `/api/v1/graphs/nope/nodes/x/history`), 404);
      assertProblem(
        await call(api.base, 'GET', `/api/v1/graphs/${graphId}/nodes/never-there/history`),
        404,
        /never in graph/,
      );
      assertProblem(
        await call(api.base, 'GET', `/api/v1/graphs/${graphId}/edges/history?src_id=a&dst_id=b&edge_type=PRODUCES`),
        404,
      );
      assertProblem(
        await call(api.base, 'GET', `/api/v1/graphs/${graphId}/nodes/${enc(ids.orders)}/history?limit=0`),
        400,
      );
      assertProblem(
        await call(api.base, 'GET', `/api/v1/graphs/${graphId}/edges/history?src_id=a&dst_id=b&edge_type=NOPE`),
        400,
      );
      assertProblem(await call(api.base, 'GET', `/api/v1/graphs/${graphId}/edges/history?src_id=a`), 400);
    });
  });
}
