/**
 * The graph reads with `as_of` and the diffs of `services/graphs.ts` on a projection whose history
 * index holds only the recent versions: points inside the window are answered by the index, older
 * ones by the snapshots and the store, and both give what the fold from the start gives; a point
 * where the graph was deleted or did not exist yet is a NotFoundError (404), never a 500.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { createMemoryEventStore } from '../../infra/eventStore/memoryEventStore.js';
import { NotFoundError } from '../../src/errors.js';
import { streams, toAppend, type LineageEvent } from '../../src/events.js';
import { edgeKey } from '../../src/graph/model.js';
import { createGraphProjection, toLineageGraph } from '../../projections/graphProjection.js';
import { createProjector } from '../../projections/projector.js';
import {
  diffGraphHistory,
  getNode,
  graphWithContent,
  listEdges,
  readGraphView,
  type GraphRuntime,
} from '../../services/graphs.js';
import { NODE_IDS, edge, expectedDiff, fromStart, node } from './randomHistories.js';

describe('graph reads as of a point, inside and outside the history index', () => {
  it('answer what the fold from the start answers', async () => {
    const clock = { time: Date.parse('2026-02-01T00:00:00.000Z') };
    const store = createMemoryEventStore({ now: () => new Date(clock.time) });
    const graphs = createGraphProjection({ historyIndexVersions: 6 });
    const projector = createProjector({ store, projections: [graphs] });
    await projector.start();
    const runtime = { store, graphs } as unknown as GraphRuntime;
    const graphId = randomUUID();
    const history: LineageEvent[][] = [
      [{ type: 'GraphCreated', data: { graph_id: graphId, name: 'reads', description: null } }],
      [{ type: 'NodesAdded', data: { graph_id: graphId, nodes: NODE_IDS.slice(0, 4).map((id) => node(id, 0)) } }],
      [
        {
          type: 'EdgesAdded',
          data: {
            graph_id: graphId,
            edges: [edge({ src: NODE_IDS[0]!, dst: NODE_IDS[1]!, type: 'PRODUCES', version: 1 })],
          },
        },
      ],
      [{ type: 'NodesChanged', data: { graph_id: graphId, nodes: [node(NODE_IDS[1]!, 2)] } }],
      [{ type: 'NodesRemoved', data: { graph_id: graphId, node_ids: [NODE_IDS[0]!] } }],
      [{ type: 'NodesAdded', data: { graph_id: graphId, nodes: [node(NODE_IDS[0]!, 1)] } }],
      [{ type: 'GraphDeleted', data: { graph_id: graphId } }],
      [{ type: 'GraphCreated', data: { graph_id: graphId, name: 'reads', description: 'again' } }],
      [{ type: 'NodesAdded', data: { graph_id: graphId, nodes: [node(NODE_IDS[5]!, 1), node(NODE_IDS[2]!, 2)] } }],
      [{ type: 'NodesChanged', data: { graph_id: graphId, nodes: [node(NODE_IDS[5]!, 2)] } }],
    ];
    let position = 0;
    for (const events of history) {
      clock.time += 10;
      position = (
        await store.append(streams.graph(graphId), toAppend(events, { correlation_id: randomUUID(), cause: 'api' }))
      ).position;
    }
    await projector.waitFor(position);
    graphs.history!.trim();
    const base = graphs.history!.baseRevision(graphId)!;
    assert.ok(base > 0 && base < history.length - 1, `the window starts mid-way (base ${base})`);
    const head = history.length - 1;
    for (let revision = 0; revision <= head + 1; revision += 1) {
      const asOf = String(revision);
      const expected = await fromStart(store, graphId, { revision });
      if (expected === 'not found' || expected.deleted) {
        await assert.rejects(readGraphView(runtime, graphId, asOf), NotFoundError, `as_of ${asOf}`);
        await assert.rejects(graphWithContent(runtime, graphId, asOf), NotFoundError, `as_of ${asOf}`);
        continue;
      }
      const serialized = (await graphWithContent(runtime, graphId, asOf)).serialize();
      const whole = JSON.parse(serialized.bytes.toString('utf8')) as {
        nodes: unknown[];
        edges: unknown[];
        node_count: number;
      };
      serialized.release();
      assert.equal(whole.node_count, expected.graph.order, `as_of ${asOf}: node count`);
      assert.deepEqual(whole.nodes, toLineageGraph(expected).nodes, `as_of ${asOf}: nodes`);
      assert.deepEqual(whole.edges, toLineageGraph(expected).edges, `as_of ${asOf}: edges`);
      const edges = await listEdges(runtime, graphId, { limit: 10, offset: 0, as_of: asOf });
      assert.deepEqual(edges.edges.map(edgeKey), expected.graph.edgeValues().map(edgeKey), `as_of ${asOf}: edge list`);
      for (const id of NODE_IDS) {
        if (expected.graph.hasNode(id))
          assert.deepEqual(await getNode(runtime, graphId, id, asOf), expected.graph.getNodeAttributes(id));
        else await assert.rejects(getNode(runtime, graphId, id, asOf), NotFoundError);
      }
    }
    for (const [from, to] of [
      [1, 3],
      [2, head],
      [base, head],
      [head, 0],
      [5, 5],
    ] as const) {
      const diff = await diffGraphHistory(runtime, graphId, String(from), String(to));
      const expected = await expectedDiff(store, graphId, { revision: from }, { revision: to });
      assert.deepEqual(
        { from: diff.from.revision, to: diff.to.revision, nodes: diff.nodes, edges: diff.edges },
        {
          from: expected.from.revision,
          to: expected.to.revision,
          nodes: expected.nodes,
          edges: expected.edges,
        },
      );
    }
    await projector.stop();
  });
});
