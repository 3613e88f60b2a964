/**
 * `GET /graphs/{graph_id}/path` and `GET /graphs/{graph_id}/nodes/{node_id}/openlineage` over a real
 * socket, on the memory and sqlite stores, against the sample graph (`test/helpers/sampleGraph.ts`):
 * downstream and upstream paths, unconnected nodes, unknown nodes (404 naming which), `as_of`,
 * percent-encoded ids, and a job, a dataset (with the runs of its graph and of ingested events) and a
 * schema in their OpenLineage form.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { topicId } from '../../src/graph/ids.js';
import { CLUSTER, ENV, ids, sampleGraph } from '../helpers/sampleGraph.js';
import { assertProblem, BACKENDS, call, enc, startApi, type TestApi } from './helpers.js';

/** A topic whose id holds characters a query string must percent-encode (`&`, `+`, `#`, space, `/`). */
const ODD_TOPIC = topicId(ENV, CLUSTER, 'odd & name+#1 x');

for (const backend of BACKENDS) {
  describe(`path and OpenLineage form of a node (${backend} store)`, () => {
    let api: TestApi;
    let graphId: string;
    /** Revision before the odd topic and its edge were added. */
    let beforeOdd: number;
    const get = (path: string) => call(api.base, 'GET', `/api/v1${path}`);
    const path = (from: string, to: string, asOf?: number) =>
      get(`/graphs/${graphId}/path?from=${enc(from)}&to=${enc(to)}${asOf === undefined ? '' : `&as_of=${asOf}`}`);
    const openLineage = (nodeId: string, asOf?: number) =>
      get(`/graphs/${graphId}/nodes/${enc(nodeId)}/openlineage${asOf === undefined ? '' : `?as_of=${asOf}`}`);

    before(async () => {
      api = await startApi({ backend });
      graphId = (await call(api.base, 'POST', '/api/v1/graphs', { json: { name: 'sample' } })).body.graph_id;
      assert.equal(
        (await call(api.base, 'POST', `/api/v1/graphs/${graphId}/import`, { json: sampleGraph() })).status,
        200,
      );
      beforeOdd = (await get(`/graphs/${graphId}`)).body.revision;
      const odd = {
        id: ODD_TOPIC,
        node_type: 'TOPIC',
        system: 'STREAM',
        qualified_name: `${CLUSTER}/odd & name+#1 x`,
        display_name: 'odd & name+#1 x',
        environment_id: ENV,
        cluster_id: CLUSTER,
        attributes: null,
      };
      assert.equal((await call(api.base, 'POST', `/api/v1/graphs/${graphId}/nodes`, { json: odd })).status, 201);
      const edge = { src_id: ODD_TOPIC, dst_id: ids.enrich, edge_type: 'CONSUMES', attributes: null };
      assert.equal((await call(api.base, 'POST', `/api/v1/graphs/${graphId}/edges`, { json: edge })).status, 201);
    });
    after(async () => api.dispose());

    it('follows edge directions from `from` to `to` (downstream)', async () => {
      const answer = await path(ids.postgres, ids.s3);
      assert.equal(answer.status, 200);
      assert.equal(answer.body.direction, 'downstream');
      assert.deepEqual(
        answer.body.nodes.map((node: { id: string }) => node.id),
        [ids.postgres, ids.source, ids.orders, ids.enrich, ids.enriched, ids.sink, ids.s3],
      );
      assert.equal(answer.body.edges.length, 6);
      answer.body.edges.forEach((edge: { src_id: string; dst_id: string }, index: number) => {
        assert.equal(edge.src_id, answer.body.nodes[index].id);
        assert.equal(edge.dst_id, answer.body.nodes[index + 1].id);
      });
    });

    it('answers the path from `to` to `from` when only that one exists (upstream), listed from `from`', async () => {
      const answer = await path(ids.enriched, ids.orders);
      assert.equal(answer.status, 200);
      assert.equal(answer.body.direction, 'upstream');
      assert.deepEqual(
        answer.body.nodes.map((node: { id: string }) => node.id),
        [ids.enriched, ids.enrich, ids.orders],
      );
      // Edges as stored: they run from `to` towards `from`.
      assert.deepEqual(
        answer.body.edges.map((edge: { src_id: string; edge_type: string; dst_id: string }) => [
          edge.src_id,
          edge.edge_type,
          edge.dst_id,
        ]),
        [
          [ids.enrich, 'PRODUCES', ids.enriched],
          [ids.orders, 'CONSUMES', ids.enrich],
        ],
      );
    });

    it('answers 200 with empty lists and a null direction for nodes not connected either way', async () => {
      const answer = await path(ids.s3, ids.lakehouse);
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body, {
        graph_id: graphId,
        from: ids.s3,
        to: ids.lakehouse,
        direction: null,
        nodes: [],
        edges: [],
      });
      const itself = await path(ids.orders, ids.orders);
      assert.deepEqual(
        [itself.body.direction, itself.body.nodes.length, itself.body.edges.length],
        ['downstream', 1, 0],
      );
    });

    it('answers 404 problem+json naming the unknown node, and 404 for an unknown graph', async () => {
      assertProblem(await path('stream:topic:nope', ids.s3), 404, /"stream:topic:nope" \(from\)/);
      assertProblem(await path(ids.s3, 'stream:topic:nope'), 404, /"stream:topic:nope" \(to\)/);
      assertProblem(await get(`/graphs/${randomUUID()}/path?from=a&to=b`), 404);
      assertProblem(await get(`/graphs/${graphId}/path?from=${enc(ids.s3)}`), 400);
      assertProblem(await get(`/graphs/${graphId}/path?from=${enc(ids.s3)}&to=${enc(ids.s3)}&as_of=yesterday`), 400);
    });

    it('takes percent-encoded ids and reads the graph as of a point', async () => {
      const now = await path(ODD_TOPIC, ids.s3);
      assert.equal(now.status, 200);
      assert.equal(now.body.from, ODD_TOPIC);
      assert.equal(now.body.direction, 'downstream');
      assert.deepEqual(
        now.body.nodes.map((node: { id: string }) => node.id),
        [ODD_TOPIC, ids.enrich, ids.enriched, ids.sink, ids.s3],
      );
      assertProblem(await path(ODD_TOPIC, ids.s3, beforeOdd), 404, /\(from\)/);
      const earlier = await path(ids.postgres, ids.s3, beforeOdd);
      assert.equal(earlier.status, 200);
      assert.equal(earlier.body.nodes.length, 7);
    });

    it('answers a job as its RunEvent, as the enriched view lists it', async () => {
      const answer = await openLineage(ids.enrich);
      assert.equal(answer.status, 200);
      assert.equal(answer.body.kind, 'job');
      assert.equal(answer.body.dataset, null);
      const view = await get(`/graphs/enriched/view?graph_id=${graphId}`);
      const listed = view.body.events.find(
        (event: { run: { runId: string } }) => event.run.runId === answer.body.event.run.runId,
      );
      assert.ok(listed, 'the view lists the same run');
      assert.deepEqual({ ...answer.body.event, eventTime: null }, { ...listed, eventTime: null });
    });

    it('answers a dataset with its facets and the runs that wrote and read it, ingested runs included', async () => {
      const answer = await openLineage(ids.orders);
      assert.equal(answer.status, 200);
      assert.equal(answer.body.kind, 'dataset');
      assert.equal(answer.body.event, null);
      assert.deepEqual(
        [answer.body.dataset.namespace, answer.body.dataset.name],
        [`stream://${ENV}/${CLUSTER}`, 'shop.public.orders'],
      );
      assert.ok(answer.body.dataset.facets.schema, 'the schema facet from HAS_SCHEMA');
      assert.deepEqual(
        answer.body.runs.written_by.map((run: { name: string; source: string }) => [run.name, run.source]),
        [['pg-orders-cdc', 'graph']],
      );
      assert.deepEqual(
        answer.body.runs.read_by.map((run: { name: string; source: string }) => [run.name, run.source]),
        [['enrich-orders', 'graph']],
      );
      assert.match(answer.body.runs.read_by[0].run_id, /^[0-9a-f-]{36}$/);

      const runId = randomUUID();
      const event = {
        eventType: 'COMPLETE',
        eventTime: '2025-01-31T12:00:00.000Z',
        run: { runId },
        job: { namespace: 'spark://analytics', name: 'daily_orders' },
        inputs: [{ namespace: `stream://${ENV}/${CLUSTER}`, name: 'shop.public.orders' }],
        outputs: [],
        producer: 'https://github.com/OpenLineage/OpenLineage/tree/1.20.0/integration/spark',
        schemaURL: 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent',
      };
      assert.equal((await call(api.base, 'POST', '/api/v1/lineage', { json: event })).status, 200);
      const after = await openLineage(ids.orders);
      const ingested = after.body.runs.read_by.find((run: { source: string }) => run.source === 'ingested');
      assert.deepEqual(ingested, {
        namespace: 'spark://analytics',
        name: 'daily_orders',
        run_id: runId,
        event_type: 'COMPLETE',
        event_time: '2025-01-31T12:00:00.000Z',
        source: 'ingested',
      });
    });

    it('answers a schema as neither, and 404 for an unknown node or one not there as of a point', async () => {
      const schema = await openLineage(ids.ordersSchema);
      assert.equal(schema.status, 200);
      assert.deepEqual([schema.body.kind, schema.body.event, schema.body.dataset], [null, null, null]);
      assertProblem(await openLineage('stream:topic:nope'), 404, /stream:topic:nope/);
      assert.equal((await openLineage(ODD_TOPIC)).body.kind, 'dataset');
      assertProblem(await openLineage(ODD_TOPIC, beforeOdd), 404);
    });
  });
}
